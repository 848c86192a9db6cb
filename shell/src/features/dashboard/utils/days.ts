import { parseTimestamp, timezoneByValue } from '@paygate/sdk';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** dayLabel names the local day an instant falls on in the zone: 'Mar 1'. */
export function dayLabel(instant: string, zone: string): string {
  const d = parseTimestamp(instant);
  if (Number.isNaN(d.getTime())) return instant;
  const local = new Date(d.getTime() + timezoneByValue(zone).offset * 3_600_000);
  return `${MONTHS[local.getUTCMonth()]} ${local.getUTCDate()}`;
}
