import { timezoneByValue } from '@paygate/sdk';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The earliest day of the fraud date range (spec 02 §9). */
export const FRAUD_MIN_DAY = '2025-01-01';

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

/** defaultFraudRange is the last 7 days until one hour ahead (spec 02 §5): from the start of the day 7 days ago. */
export function defaultFraudRange(now: Date, zone: string): DateRange {
  return {
    from: startOfDay(new Date(now.getTime() - 7 * DAY), zone).toISOString(),
    to: new Date(now.getTime() + HOUR).toISOString(),
  };
}

/** dayOf renders the zone's calendar day of an instant as YYYY-MM-DD (for a date input). */
export function dayOf(iso: string, zone: string): string {
  return new Date(new Date(iso).getTime() + offsetMs(zone)).toISOString().slice(0, 10);
}

function dayStart(day: string, zone: string): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return null;
  const t = Date.parse(`${day}T00:00:00.000Z`);
  return Number.isNaN(t) ? null : new Date(t - offsetMs(zone));
}

/**
 * fraudRange applies the fraud filter's date rules (spec 02 §5) to typed
 * days: no start gives the default range; the start snaps to 00:00:00.000
 * and the end to 23:59:59.999 in the zone; no end uses the end of the start
 * day; days before 2025-01-01 move to it and days after today to today;
 * reversed days are swapped.
 */
export function fraudRange(fromDay: string, toDay: string, zone: string, now: Date): DateRange {
  const today = dayOf(now.toISOString(), zone);
  const clamp = (d: string) => (d < FRAUD_MIN_DAY ? FRAUD_MIN_DAY : d > today ? today : d);
  let start = fromDay ? dayStart(clamp(fromDay), zone) : null;
  if (!start) return defaultFraudRange(now, zone);
  let end = (toDay ? dayStart(clamp(toDay), zone) : null) ?? start;
  if (end < start) [start, end] = [end, start];
  return { from: start.toISOString(), to: new Date(end.getTime() + DAY - 1).toISOString() };
}
