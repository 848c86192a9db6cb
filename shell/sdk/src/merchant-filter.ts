/**
 * reconcileMerchantFilter applies the merchant-filter rule of spec 01 §4 once
 * the user's merchants have loaded: a stored choice among them stays;
 * otherwise the filter is cleared when there are none, set to the only one
 * when there is one, and set to the first when there are several.
 */
export function reconcileMerchantFilter(stored: number | null, merchantIds: readonly number[]): number | null {
  if (stored !== null && merchantIds.includes(stored)) return stored;
  return merchantIds[0] ?? null;
}
