import { formatDateTime, parseTimestamp, timezoneByValue } from '@paygate/sdk';

const HOUR = 3_600_000;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * passkeyDate reads a passkey's date against now (spec 02 §9): Today under
 * 24 hours, Yesterday under 48, "N days ago" under 168, else the date in the
 * selected timezone; a missing date reads "Never".
 */
export function passkeyDate(value: string | null | undefined, now: number, zone: string): string {
  if (!value) return 'Never';
  const at = parseTimestamp(value);
  if (Number.isNaN(at.getTime())) return 'Never';
  const hours = (now - at.getTime()) / HOUR;
  if (hours < 24) return 'Today';
  if (hours < 48) return 'Yesterday';
  if (hours < 168) return `${Math.floor(hours / 24)} days ago`;
  const d = new Date(at.getTime() + timezoneByValue(zone).offset * HOUR);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** PasskeyDate shows a passkey's date as passkeyDate reads it, the exact time in its title. */
export function PasskeyDate({ value, now, zone }: { value: string | null | undefined; now: number; zone: string }) {
  return (
    <time dateTime={value ?? undefined} title={value ? formatDateTime(value, zone) : undefined}>
      {passkeyDate(value, now, zone)}
    </time>
  );
}
