import { describe, expect, it } from 'vitest';
import { RANGE_OPTIONS, rangeFor, rangeLabel, SHORT_RANGE_OPTIONS } from './range';

// 2025-03-10 20:30 UTC: already 2025-03-11 in UTC+8 and UTC+12, still 2025-03-10 in UTC and UTC-12.
const NOW = new Date('2025-03-10T20:30:00Z');

describe('dashboard ranges (spec 01 §9)', () => {
  it('offers the ranges in days, Today first', () => {
    expect(RANGE_OPTIONS.map((o) => [o.label, o.days])).toEqual([
      ['Today', 1],
      ['Yesterday', 2],
      ['Last Week', 7],
      ['Last 14 Days', 14],
      ['Last 30 Days', 30],
      ['Last 90 Days', 90],
      ['Last 180 Days', 180],
      ['Last Year', 365],
    ]);
  });

  const zones: [zone: string, today: string, yesterday: string, weekStart: string, offset: string][] = [
    ['Etc/GMT+12', '2025-03-10', '2025-03-09', '2025-03-04', '-12:00'],
    ['UTC', '2025-03-10', '2025-03-09', '2025-03-04', 'Z'],
    ['Etc/GMT-8', '2025-03-11', '2025-03-10', '2025-03-05', '+08:00'],
    ['Etc/GMT-12', '2025-03-11', '2025-03-10', '2025-03-05', '+12:00'],
  ];

  it.each(zones)('in %s: Today is local midnight to 23:59:59.999 of today', (zone, today, _y, _w, offset) => {
    expect(rangeFor(1, NOW, zone)).toEqual({ from: `${today}T00:00:00.000${offset}`, to: `${today}T23:59:59.999${offset}` });
  });

  it.each(zones)('in %s: Yesterday is yesterday only', (zone, _t, yesterday, _w, offset) => {
    expect(rangeFor(2, NOW, zone)).toEqual({ from: `${yesterday}T00:00:00.000${offset}`, to: `${yesterday}T23:59:59.999${offset}` });
  });

  it.each(zones)('in %s: Last Week is the 7 local days ending today', (zone, today, _y, weekStart, offset) => {
    expect(rangeFor(7, NOW, zone)).toEqual({ from: `${weekStart}T00:00:00.000${offset}`, to: `${today}T23:59:59.999${offset}` });
  });

  it('every range starts on a whole hour and ends 1 ms before one, N local days long', () => {
    for (const zone of zones.map((z) => z[0])) {
      for (const { days } of RANGE_OPTIONS) {
        const r = rangeFor(days, NOW, zone);
        const from = Date.parse(r.from);
        const to = Date.parse(r.to);
        expect(from % 3_600_000).toBe(0);
        expect((to + 1) % 3_600_000).toBe(0);
        expect((to + 1 - from) / 86_400_000).toBe(days === 2 ? 1 : days);
      }
    }
  });

  it('crosses a year and a leap day', () => {
    expect(rangeFor(365, new Date('2024-12-31T12:00:00Z'), 'UTC').from).toBe('2024-01-02T00:00:00.000Z');
    expect(rangeFor(2, new Date('2024-03-01T05:00:00Z'), 'UTC').from).toBe('2024-02-29T00:00:00.000Z');
  });

  it('offers Last 15 minutes and Last hour on whole minutes, the current minute included (issue 29)', () => {
    expect(SHORT_RANGE_OPTIONS.map((o) => o.label)).toEqual(['Last 15 minutes', 'Last hour']);
    const now = new Date('2025-03-10T20:30:42.123Z');
    expect(rangeFor(-15, now, 'UTC')).toEqual({ from: '2025-03-10T20:16:00.000Z', to: '2025-03-10T20:30:59.999Z' });
    expect(rangeFor(-60, now, 'Etc/GMT-8')).toEqual({ from: '2025-03-11T03:31:00.000+08:00', to: '2025-03-11T04:30:59.999+08:00' });
    expect(rangeLabel(-60)).toBe('Last hour');
  });
});
