/** The transaction status codes of spec 02 §4. */
export const TRANSACTION_STATUSES: readonly { value: number; label: string }[] = [
  { value: 4, label: 'Success' },
  { value: 3, label: 'Pending' },
  { value: 2, label: 'Scheduled' },
  { value: 1, label: 'Not Confirmed' },
  { value: 0, label: 'Unknown' },
  { value: -1, label: 'Cancelled' },
  { value: -2, label: 'PSP Error' },
  { value: -3, label: 'PSP Generic' },
  { value: -4, label: 'Network Error' },
  { value: -5, label: 'Internal Error' },
  { value: -6, label: 'Validation Failed' },
  { value: 300, label: 'Pending (Archive)' },
];

export const STATUS_SUCCESS = 4;
export const STATUS_CANCELLED = -1;

/** statusLabel names a status code; an unlisted code shows as the number. */
export function statusLabel(code: number): string {
  return TRANSACTION_STATUSES.find((s) => s.value === code)?.label ?? String(code);
}

/** StatusClass is how a status is displayed (spec 02 §4). */
export type StatusClass = 'success' | 'pending' | 'error';

/** statusClass: 4 success; 3, 2, 1 pending; all others error. */
export function statusClass(code: number): StatusClass {
  if (code === 4) return 'success';
  if (code === 3 || code === 2 || code === 1) return 'pending';
  return 'error';
}

/** STATUS_PALETTE maps a display class to a Chakra colour palette. */
export const STATUS_PALETTE: Record<StatusClass, string> = { success: 'green', pending: 'orange', error: 'red' };

/** statusesLabel renders the status multi-select label: at most 3 names, then '+N'. */
export function statusesLabel(codes: readonly number[]): string {
  if (codes.length === 0) return 'All statuses';
  const names = codes.slice(0, 3).map(statusLabel).join(', ');
  return codes.length > 3 ? `${names} +${codes.length - 3}` : names;
}

/** TRANSACTION_TYPES are the directions of spec 02 §3. */
export const TRANSACTION_TYPES = [
  { value: 1, label: 'Deposit' },
  { value: 2, label: 'Withdrawal' },
] as const;

/**
 * callbackDelivery renders the callback delivery status as 'x a/b' (spec 02
 * §2). The gateway sends a single number today (delivered attempts), which is
 * shown as is until it sends both figures.
 */
export function callbackDelivery(delivered: number, total?: number): { text: string; ok: boolean } {
  if (total === undefined) return { text: String(delivered), ok: delivered > 0 };
  return { text: `x ${delivered}/${total}`, ok: delivered === total };
}
