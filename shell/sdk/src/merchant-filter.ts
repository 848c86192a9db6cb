import type { User } from './access';
import { seesAllMerchants } from './requirement';

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

/**
 * merchantScope is the merchant a view follows (spec 01 §4 "Merchant
 * filter"): the sidebar's Current Merchant of a user who is not an admin,
 * when it is one of the user's merchants. Admins and users without a choice
 * get null: every merchant they may see.
 */
export function merchantScope(user: User | null | undefined, selected: number | null): number | null {
  if (!user || seesAllMerchants(user) || selected === null) return null;
  return user.merchantIds.includes(selected) ? selected : null;
}
