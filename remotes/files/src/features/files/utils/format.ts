import { parseTimestamp } from '@paygate/sdk';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'} ago`;

/**
 * relativeTime says how long ago `input` was (spec 02 "Files"): "Just now"
 * for a future time or 30 seconds or less, else seconds, minutes, hours or
 * days ago with plurals; an invalid or missing date gives ''. A timestamp
 * without a zone marker is UTC.
 */
export function relativeTime(input: string | number | Date | null | undefined, now: number = Date.now()): string {
  if (input === null || input === undefined || input === '') return '';
  const at = parseTimestamp(input).getTime();
  if (Number.isNaN(at)) return '';
  const ago = now - at;
  if (ago <= 30 * SECOND) return 'Just now';
  if (ago < MINUTE) return plural(Math.floor(ago / SECOND), 'second');
  if (ago < HOUR) return plural(Math.floor(ago / MINUTE), 'minute');
  if (ago < DAY) return plural(Math.floor(ago / HOUR), 'hour');
  return plural(Math.floor(ago / DAY), 'day');
}

const UNITS = ['B', 'KB', 'MB', 'GB'] as const;

/**
 * formatSize renders a byte count in B, KB, MB or GB, in 1024 steps with 2
 * decimals ('0.00 B', '1.50 KB'); GB is the largest unit.
 */
export function formatSize(bytes: number): string {
  let value = Number.isFinite(bytes) && bytes > 0 ? bytes : 0;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(2)} ${UNITS[unit]}`;
}

/**
 * processingTime renders the time since `created` as minutes and seconds
 * ('0m 05s', '12m 30s'; hours count as minutes); '' for an invalid date, and
 * '0m 00s' for a creation time in the future.
 */
export function processingTime(created: string | null | undefined, now: number = Date.now()): string {
  if (!created) return '';
  const at = parseTimestamp(created).getTime();
  if (Number.isNaN(at)) return '';
  const seconds = Math.max(0, Math.floor((now - at) / SECOND));
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}
