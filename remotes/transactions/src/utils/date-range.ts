import { timezoneByValue } from '@paygate/sdk';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The earliest selectable day (spec 02 §5). */
export const MIN_DATE = '2025-01-01';

/** DateRange is a closed range of instants (ISO strings in UTC). */
export interface DateRange {
  from: string;
  to: string;
}

const offsetMs = (zone: string) => timezoneByValue(zone).offset * HOUR;

/** startOfDay is 00:00:00.000 of the day holding `at` in the zone. */
export function startOfDay(at: Date, zone: string): Date {
  const off = offsetMs(zone);
  const local = at.getTime() + off;
  return new Date(local - (((local % DAY) + DAY) % DAY) - off);
}

/** endOfDay is 23:59:59.999 of the day holding `at` in the zone. */
export function endOfDay(at: Date, zone: string): Date {
  return new Date(startOfDay(at, zone).getTime() + DAY - 1);
}

/** defaultRange is yesterday's start to today's end in the zone. */
export function defaultRange(now: Date, zone: string): DateRange {
  return {
    from: new Date(startOfDay(now, zone).getTime() - DAY).toISOString(),
    to: endOfDay(now, zone).toISOString(),
  };
}

/** dayInZone renders the zone's calendar day of an instant as YYYY-MM-DD (for a date input). */
export function dayInZone(iso: string, zone: string): string {
  const d = new Date(new Date(iso).getTime() + offsetMs(zone));
  return d.toISOString().slice(0, 10);
}

/** dayStart is the instant a YYYY-MM-DD day starts in the zone, or null for an invalid day. */
export function dayStart(day: string, zone: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const t = Date.parse(`${day}T00:00:00.000Z`);
  return Number.isNaN(t) ? null : new Date(t - offsetMs(zone));
}

/** RangeResult is a normalized range and whether the end was filled in for the user. */
export interface RangeResult {
  range: DateRange;
  endFilled: boolean;
}

/**
 * normalizeRange applies the rules of spec 02 §5 to picked days: no start
 * (a cleared range) gives the default; the start snaps to 00:00:00, the end to
 * 23:59:59.999; a missing end uses the end of the start day (the caller shows
 * the info toast); a start before 1 Jan 2025 is moved to it; reversed days are
 * swapped.
 */
export function normalizeRange(fromDay: string, toDay: string, zone: string, now: Date): RangeResult {
  let start = dayStart(fromDay < MIN_DATE && fromDay ? MIN_DATE : fromDay, zone);
  if (!start) return { range: defaultRange(now, zone), endFilled: false };
  let endStart = dayStart(toDay, zone);
  const endFilled = !endStart;
  if (!endStart) endStart = start;
  if (endStart < start) [start, endStart] = [endStart, start];
  return { range: { from: start.toISOString(), to: new Date(endStart.getTime() + DAY - 1).toISOString() }, endFilled };
}
