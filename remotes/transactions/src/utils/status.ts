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

/** DeliveryState is how a transaction's callbacks went: none sent, all delivered, some, or none of those sent. */
export type DeliveryState = 'none' | 'success' | 'partial' | 'failed';

/** CallbackDelivery is the callback tally as a row shows it. */
export interface CallbackDelivery {
  delivered: number;
  total: number;
  state: DeliveryState;
  /** The mark before the figures. */
  mark: string;
  /** 'a/b'. */
  figures: string;
  /** The sentence assistive technology reads. */
  label: string;
}

const MARKS: Record<DeliveryState, string> = { none: '–', success: '✓', partial: '!', failed: '✗' };

/** DELIVERY_PALETTE maps a delivery state to a Chakra colour palette. */
export const DELIVERY_PALETTE: Record<DeliveryState, string> = { none: 'gray', success: 'green', partial: 'orange', failed: 'red' };

/**
 * callbackDelivery reads the tally "delivered/total" (spec 02 §2: shown as
 * "x a/b", a equal to b counts as success). Nothing sent ("0/0") is neither a
 * success nor a failure; some delivered is a warning, none delivered a
 * failure. A tally it cannot read counts as nothing sent.
 */
export function callbackDelivery(raw: string): CallbackDelivery {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(raw);
  const delivered = m ? Number(m[1]) : 0;
  const total = m ? Number(m[2]) : 0;
  let state: DeliveryState;
  let label: string;
  if (total === 0) {
    state = 'none';
    label = 'No callbacks sent';
  } else if (delivered >= total) {
    state = 'success';
    label = `Callbacks delivered: ${delivered} of ${total}`;
  } else if (delivered > 0) {
    state = 'partial';
    label = `Callbacks partly delivered: ${delivered} of ${total}`;
  } else {
    state = 'failed';
    label = `Callbacks not delivered: 0 of ${total}`;
  }
  return { delivered, total, state, mark: MARKS[state], figures: `${delivered}/${total}`, label };
}

/** The validation result statuses of spec 02 §4, settable by the operator. */
export const VALIDATION_STATUSES: readonly { value: number; label: string }[] = [
  { value: 0, label: 'Pending' },
  { value: 1, label: 'Success' },
  { value: -1, label: 'Failed' },
];

/** validationStatusLabel names a validation status; an unlisted one shows as the number. */
export function validationStatusLabel(status: number): string {
  return VALIDATION_STATUSES.find((s) => s.value === status)?.label ?? String(status);
}

/** validationPalette colours a validation status. */
export function validationPalette(status: number): string {
  return status === 1 ? 'green' : status === 0 ? 'orange' : 'red';
}

/** validationResultName shows a validation result's id: AVR-<id> when awaitable, VR-<id> otherwise (spec 02 §2). */
export function validationResultName(id: string, awaitable: boolean): string {
  return `${awaitable ? 'AVR' : 'VR'}-${id}`;
}

/** Above this many status polls the row highlights the figure as a warning (spec 02 §2). */
export const POLLING_WARNING_ABOVE = 10;

/** pollingWarning: the polling-attempts figure is a warning above 10. */
export function pollingWarning(attempts: number): boolean {
  return attempts > POLLING_WARNING_ABOVE;
}
