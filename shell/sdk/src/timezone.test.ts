import { describe, expect, it } from 'vitest';
import { DEFAULT_TIMEZONE, formatDateTime, parseTimestamp, TIMEZONES, timezoneByValue } from './timezone';

describe('timezone options', () => {
  it('has 25 options from UTC-12 to UTC+12 with label, zone id and offset', () => {
    expect(TIMEZONES).toHaveLength(25);
    expect(TIMEZONES.map((t) => t.offset)).toEqual(Array.from({ length: 25 }, (_, i) => i - 12));
    expect(TIMEZONES[0]).toEqual({ label: 'UTC-12', value: 'Etc/GMT+12', offset: -12 });
    expect(TIMEZONES.find((t) => t.offset === -5)).toEqual({ label: 'UTC-5', value: 'Etc/GMT+5', offset: -5 });
    expect(TIMEZONES.find((t) => t.offset === 8)).toEqual({ label: 'UTC+8', value: 'Etc/GMT-8', offset: 8 });
    expect(TIMEZONES[24]).toEqual({ label: 'UTC+12', value: 'Etc/GMT-12', offset: 12 });
    expect(new Set(TIMEZONES.map((t) => t.value)).size).toBe(25);
  });

  it('defaults to UTC, also for an unknown zone', () => {
    expect(DEFAULT_TIMEZONE).toBe('UTC');
    expect(timezoneByValue('UTC')).toEqual({ label: 'UTC', value: 'UTC', offset: 0 });
    expect(timezoneByValue('Mars/Olympus').value).toBe('UTC');
    expect(timezoneByValue(null).value).toBe('UTC');
  });

  it('agrees with the platform about what each Etc zone means', () => {
    const at = new Date(Date.UTC(2025, 5, 1, 12, 0, 0));
    for (const tz of TIMEZONES) {
      const hour = Number(new Intl.DateTimeFormat('en-US', { timeZone: tz.value, hour: 'numeric', hourCycle: 'h23' }).format(at));
      expect((hour - 12 + 24) % 24, tz.label).toBe((tz.offset + 24) % 24);
    }
  });
});

describe('formatDateTime', () => {
  it("renders 'Mon D, YYYY, HH:MM:SS (UTC±N)'", () => {
    expect(formatDateTime('2025-01-05T14:03:09Z')).toBe('Jan 5, 2025, 14:03:09 (UTC+0)');
    expect(formatDateTime('2025-01-05T14:03:09Z', 'Etc/GMT-8')).toBe('Jan 5, 2025, 22:03:09 (UTC+8)');
    expect(formatDateTime('2025-01-05T02:03:09Z', 'Etc/GMT+5')).toBe('Jan 4, 2025, 21:03:09 (UTC-5)');
    expect(formatDateTime('2024-12-31T23:59:59Z', 'Etc/GMT-12')).toBe('Jan 1, 2025, 11:59:59 (UTC+12)');
  });

  it('treats timestamps without a zone marker as UTC', () => {
    expect(formatDateTime('2025-03-10T08:00:00')).toBe('Mar 10, 2025, 08:00:00 (UTC+0)');
    expect(formatDateTime('2025-03-10 08:00:00.123', 'Etc/GMT-1')).toBe('Mar 10, 2025, 09:00:00 (UTC+1)');
    expect(parseTimestamp('2025-03-10T08:00:00').toISOString()).toBe('2025-03-10T08:00:00.000Z');
    expect(parseTimestamp('2025-03-10T08:00:00+02:00').toISOString()).toBe('2025-03-10T06:00:00.000Z');
  });

  it('accepts dates and epoch milliseconds, and renders an invalid date as empty', () => {
    const ms = Date.UTC(2026, 10, 22, 6, 5, 4);
    expect(formatDateTime(ms)).toBe('Nov 22, 2026, 06:05:04 (UTC+0)');
    expect(formatDateTime(new Date(ms), 'Etc/GMT+12')).toBe('Nov 21, 2026, 18:05:04 (UTC-12)');
    expect(formatDateTime('not a date')).toBe('');
  });
});
