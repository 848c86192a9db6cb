/** TimezoneOption is one entry of the Timezone dropdown. */
export interface TimezoneOption {
  /** Shown in the dropdown, e.g. `UTC-5`. */
  label: string;
  /** IANA zone id, e.g. `Etc/GMT+5` for UTC-5 (the Etc zones invert the sign). */
  value: string;
  /** Offset from UTC in hours. */
  offset: number;
}

/** The default timezone (spec 01 §9). */
export const DEFAULT_TIMEZONE = 'UTC';

function signed(n: number): string {
  return `${n < 0 ? '-' : '+'}${Math.abs(n)}`;
}

/** The 25 options from UTC-12 to UTC+12. */
export const TIMEZONES: readonly TimezoneOption[] = Array.from({ length: 25 }, (_, i) => {
  const offset = i - 12;
  if (offset === 0) return { label: 'UTC', value: DEFAULT_TIMEZONE, offset };
  return { label: `UTC${signed(offset)}`, value: `Etc/GMT${signed(-offset)}`, offset };
});

/** timezoneByValue finds an option by zone id, falling back to UTC. */
export function timezoneByValue(value: string | null | undefined): TimezoneOption {
  return TIMEZONES.find((t) => t.value === value) ?? (TIMEZONES[12] as TimezoneOption);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const HAS_ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

/** parseTimestamp reads a date; a timestamp string without a zone marker is UTC. */
export function parseTimestamp(input: string | number | Date): Date {
  if (input instanceof Date) return new Date(input.getTime());
  if (typeof input === 'number') return new Date(input);
  const s = input.trim().replace(' ', 'T');
  const isDateTime = /^\d{4}-\d{2}-\d{2}T/.test(s);
  return new Date(isDateTime && !HAS_ZONE.test(s) ? `${s}Z` : s);
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * formatDateTime renders 'Mon D, YYYY, HH:MM:SS (UTC±N)' in the given zone
 * (one of TIMEZONES, default UTC). An invalid date renders as ''.
 */
export function formatDateTime(input: string | number | Date, zone: string = DEFAULT_TIMEZONE): string {
  const date = parseTimestamp(input);
  if (Number.isNaN(date.getTime())) return '';
  const tz = timezoneByValue(zone);
  const d = new Date(date.getTime() + tz.offset * 3_600_000);
  const day = `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${day}, ${time} (UTC${signed(tz.offset)})`;
}
