import type { CallbackJson } from '@paygate/gen/callbacks/v1/callbacks_pb';

/** CallbackWire is a callback URL on the wire (generated from the callbacks service's protos). */
export type CallbackWire = Omit<CallbackJson, 'transactionTypeId'> & { transactionTypeId?: number | null };

/** The transaction types a callback URL receives: null every type, 1 Cash In, 2 Cash Out (spec 02 §3). */
export type CallbackTransactionType = null | 1 | 2;

/** CallbackUrl is a callback URL as the console shows it. */
export interface CallbackUrl {
  /** A 64-bit id, kept as the string the JSON carries. */
  id: string;
  collabId: number;
  merchantId: number;
  callbackUrl: string;
  isEnabled: boolean;
  maxAttempts: number;
  addSignature: boolean;
  transactionTypeId: CallbackTransactionType;
  /** The final statuses it receives (4, -1 to -6), ascending; empty for every one. */
  finalStatuses: number[];
  /** Why the URL was disabled automatically (its every attempt failed for too long); null otherwise. */
  disabledReason: string | null;
  /** When it was, as RFC 3339; null otherwise. */
  disabledUtc: string | null;
  /** Custom headers its deliveries carry; a secret one's value is never answered (empty). */
  headers: CallbackHeader[];
}

/** CallbackHeader is a custom header of a callback URL (docs/contracts-callbacks.md, "Custom headers"). */
export interface CallbackHeader {
  name: string;
  value: string;
  secret: boolean;
}

/** CALLBACK_TYPES name the transaction types in the order the selects offer them. */
export const CALLBACK_TYPES: readonly { value: CallbackTransactionType; label: string }[] = [
  { value: null, label: 'All' },
  { value: 1, label: 'Cash In' },
  { value: 2, label: 'Cash Out' },
];

/** callbackTypeLabel names a callback URL's transaction type. */
export function callbackTypeLabel(t: CallbackTransactionType): string {
  return CALLBACK_TYPES.find((c) => c.value === t)?.label ?? 'All';
}

/**
 * toCallbackUrl fills the defaults proto3 JSON leaves out (false, 0). A type
 * other than 1 or 2 (absent, null, 0) means every type.
 */
export function toCallbackUrl(c: CallbackWire): CallbackUrl {
  const type = c.transactionTypeId;
  return {
    id: String(c.id ?? ''),
    collabId: c.collabId ?? 0,
    merchantId: c.merchantId ?? 0,
    callbackUrl: c.callbackUrl ?? '',
    isEnabled: c.isEnabled ?? false,
    maxAttempts: c.maxAttempts ?? 0,
    addSignature: c.addSignature ?? false,
    transactionTypeId: type === 1 || type === 2 ? type : null,
    finalStatuses: c.finalStatuses ?? [],
    disabledReason: c.disabledReason ?? null,
    disabledUtc: c.disabledUtc ?? null,
    headers: (c.headers ?? []).map((h) => ({ name: h.name ?? '', value: h.value ?? '', secret: h.secret ?? false })),
  };
}
