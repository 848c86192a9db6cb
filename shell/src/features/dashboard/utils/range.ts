import { timezoneByValue } from '@paygate/sdk';

/** RangeOption is one entry of the dashboard's time-range dropdown (spec 01 §9). */
export interface RangeOption {
  label: string;
  /** The value in days. */
  days: number;
}

/** The time ranges of spec 01 §9, in their order; the value is in days. */
export const RANGE_OPTIONS: readonly RangeOption[] = [
  { label: 'Today', days: 1 },
  { label: 'Yesterday', days: 2 },
  { label: 'Last Week', days: 7 },
  { label: 'Last 14 Days', days: 14 },
  { label: 'Last 30 Days', days: 30 },
  { label: 'Last 90 Days', days: 90 },
  { label: 'Last 180 Days', days: 180 },
  { label: 'Last Year', days: 365 },
];

/**
 * The short ranges beside the spec's (issue 29): the last N minutes, on whole
 * minutes (statistics answer any range on whole minutes). Their value is -N,
 * so one number still names every dropdown entry.
 */
export const SHORT_RANGE_OPTIONS: readonly RangeOption[] = [
  { label: 'Last 15 minutes', days: -15 },
  { label: 'Last hour', days: -60 },
];

/** The default range: Today. */
export const DEFAULT_RANGE_DAYS = 1;

/** The value of Yesterday, the one range that does not end today. */
export const YESTERDAY = 2;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** StatisticsRange is the `from` and `to` of one statistics call, RFC 3339 with the zone's offset. */
export interface StatisticsRange {
  from: string;
  to: string;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** localStamp writes an instant as the wall-clock time of a fixed offset, with that offset. */
function localStamp(instant: number, offsetHours: number): string {
  const d = new Date(instant + offsetHours * HOUR_MS);
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
  const zone = offsetHours === 0 ? 'Z' : `${offsetHours < 0 ? '-' : '+'}${pad(Math.abs(offsetHours))}:00`;
  return `${date}T${time}${zone}`;
}

/**
 * rangeFor returns the range of a dropdown value at `now` in the console's
 * timezone (one of the 25 whole-hour zones): from local midnight to
 * 23:59:59.999 local. N days are the N local days ending today (Today is
 * today only); Yesterday is yesterday only.
 */
export function rangeFor(days: number, now: Date, zone: string): StatisticsRange {
  const { offset } = timezoneByValue(zone);
  if (days < 0) {
    // The last -days minutes, the current minute included: from :00.000 of a minute to :59.999 of the current one.
    const end = Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
    return { from: localStamp(end + days * MINUTE_MS, offset), to: localStamp(end - 1, offset) };
  }
  const local = now.getTime() + offset * HOUR_MS;
  // Midnight of today in the zone, as an instant.
  const todayStart = local - (((local % DAY_MS) + DAY_MS) % DAY_MS) - offset * HOUR_MS;
  const lastDayStart = days === YESTERDAY ? todayStart - DAY_MS : todayStart;
  const dayCount = days === YESTERDAY ? 1 : Math.max(days, 1);
  const from = lastDayStart - (dayCount - 1) * DAY_MS;
  const to = lastDayStart + DAY_MS - 1;
  return { from: localStamp(from, offset), to: localStamp(to, offset) };
}

/** rangeLabel names a dropdown value ('Today', …). */
export function rangeLabel(days: number): string {
  return [...SHORT_RANGE_OPTIONS, ...RANGE_OPTIONS].find((o) => o.days === days)?.label ?? `${days} days`;
}
