import { MIN_DATE, dayInZone, dayStart, startOfDay, type DateRange } from '../../../utils/date-range';

export type { DateRange };

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The earliest day of the fraud date range (spec 02 §9): the transactions' own minimum. */
export const FRAUD_MIN_DAY = MIN_DATE;

/** defaultFraudRange is the last 7 days until one hour ahead (spec 02 §5): from the start of the day 7 days ago. */
export function defaultFraudRange(now: Date, zone: string): DateRange {
  return {
    from: startOfDay(new Date(now.getTime() - 7 * DAY), zone).toISOString(),
    to: new Date(now.getTime() + HOUR).toISOString(),
  };
}

/** dayOf renders the zone's calendar day of an instant as YYYY-MM-DD (for a date input). */
export const dayOf = dayInZone;

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
