/** SearchTarget is what a free-text search looks for (spec 02 §5). */
export type SearchTarget = { kind: 'none' } | { kind: 'id'; id: string } | { kind: 'reference'; reference: string };

/** searchTarget: all digits means search by id, otherwise by reference id; blank means no search. */
export function searchTarget(text: string | undefined): SearchTarget {
  const t = (text ?? '').trim();
  if (!t) return { kind: 'none' };
  return /^\d+$/.test(t) ? { kind: 'id', id: t } : { kind: 'reference', reference: t };
}

/** Payment method types of the payment method filter. */
export const PAYMENT_METHOD = { auto: 0, phone: 1, crypto: 2 } as const;

/** paymentMethodType: all digits means Phone (1), otherwise Crypto (2), none means Auto (0). */
export function paymentMethodType(value: string | undefined): number {
  const v = (value ?? '').trim();
  if (!v) return PAYMENT_METHOD.auto;
  return /^\d+$/.test(v) ? PAYMENT_METHOD.phone : PAYMENT_METHOD.crypto;
}

/** amountFilter keeps a typed amount to 2 fraction digits ('' stays ''); anything else is refused (null). */
export function amountFilter(input: string): string | null {
  const v = input.trim();
  if (v === '') return '';
  return /^\d*(\.\d{0,2})?$/.test(v) ? v : null;
}
