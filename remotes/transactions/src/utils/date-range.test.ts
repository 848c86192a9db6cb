import { describe, expect, it } from 'vitest';
import { dayInZone, defaultRange, endOfDay, normalizeRange, startOfDay } from './date-range';

const NOW = new Date('2026-11-22T07:30:00Z');
const UTC8 = 'Etc/GMT-8';
const UTC_5 = 'Etc/GMT+5';

describe('date range rules (spec 02 §5)', () => {
  it('defaults to yesterday start → today end in the selected timezone', () => {
    expect(defaultRange(NOW, 'UTC')).toEqual({ from: '2026-11-21T00:00:00.000Z', to: '2026-11-22T23:59:59.999Z' });
    // 07:30 UTC is 15:30 on Nov 22 in UTC+8.
    expect(defaultRange(NOW, UTC8)).toEqual({ from: '2026-11-20T16:00:00.000Z', to: '2026-11-22T15:59:59.999Z' });
    // 07:30 UTC is 02:30 on Nov 22 in UTC-5.
    expect(defaultRange(NOW, UTC_5)).toEqual({ from: '2026-11-21T05:00:00.000Z', to: '2026-11-23T04:59:59.999Z' });
  });

  it('snaps the start to 00:00:00 and the end to 23:59:59.999', () => {
    expect(startOfDay(new Date('2026-03-05T23:10:00Z'), UTC8).toISOString()).toBe('2026-03-05T16:00:00.000Z');
    expect(endOfDay(new Date('2026-03-05T10:00:00Z'), 'UTC').toISOString()).toBe('2026-03-05T23:59:59.999Z');
    expect(normalizeRange('2026-03-01', '2026-03-05', UTC8, NOW)).toEqual({
      range: { from: '2026-02-28T16:00:00.000Z', to: '2026-03-05T15:59:59.999Z' },
      endFilled: false,
    });
  });

  it('uses the end of the start day when the end is missing, and says so', () => {
    expect(normalizeRange('2026-03-01', '', 'UTC', NOW)).toEqual({
      range: { from: '2026-03-01T00:00:00.000Z', to: '2026-03-01T23:59:59.999Z' },
      endFilled: true,
    });
  });

  it('resets a cleared range to the default, keeps days on or after 1 Jan 2025, and swaps reversed days', () => {
    expect(normalizeRange('', '', 'UTC', NOW)).toEqual({ range: defaultRange(NOW, 'UTC'), endFilled: false });
    expect(normalizeRange('2024-06-01', '2025-01-02', 'UTC', NOW).range.from).toBe('2025-01-01T00:00:00.000Z');
    expect(normalizeRange('2026-03-05', '2026-03-01', 'UTC', NOW).range).toEqual({ from: '2026-03-01T00:00:00.000Z', to: '2026-03-05T23:59:59.999Z' });
  });

  it('shows an instant as the calendar day of the zone', () => {
    expect(dayInZone('2026-02-28T16:00:00.000Z', UTC8)).toBe('2026-03-01');
    expect(dayInZone('2026-02-28T16:00:00.000Z', 'UTC')).toBe('2026-02-28');
  });
});
