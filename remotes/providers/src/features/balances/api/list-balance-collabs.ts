import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import type { BalanceCollabJson } from '@paygate/gen/gateway/v1/balances_pb';

/** BalanceCollab is a collab whose provider reports a balance: one row of the page. */
export interface BalanceCollab {
  collabId: number;
  merchantName: string;
  providerId: number;
  providerName: string;
  providerPathSegment: string;
}

/** The providers that report a balance (spec 02 §9). */
export const BALANCE_PROVIDER_IDS: readonly number[] = [3, 4, 5, 19];

/**
 * fetchBalanceCollabs lists the balance-supporting collabs in the caller's
 * scope (GET {gatewayUrl}/api/v1/balances/collabs, admin or merchant with
 * Balance Access), keeping those of the providers of spec 02 §9.
 */
export async function fetchBalanceCollabs(signal?: AbortSignal): Promise<BalanceCollab[]> {
  const body = await api.get<BalanceCollabJson[]>('gateway', '/api/v1/balances/collabs', { signal });
  return (Array.isArray(body) ? body : [])
    .map((c) => ({
      collabId: c.collabId ?? 0,
      merchantName: c.merchantName ?? '',
      providerId: c.providerId ?? 0,
      providerName: c.providerName ?? '',
      providerPathSegment: c.providerPathSegment ?? '',
    }))
    .filter((c) => BALANCE_PROVIDER_IDS.includes(c.providerId));
}

/** BALANCE_COLLABS_KEY is the key of the list query. */
export const BALANCE_COLLABS_KEY = ['balances', 'collabs'] as const;

/** balanceCollabsQuery is the query of the page's rows. */
export const balanceCollabsQuery = () =>
  queryOptions({
    queryKey: BALANCE_COLLABS_KEY,
    queryFn: ({ signal }) => fetchBalanceCollabs(signal),
  });

/** useBalanceCollabs reads the page's rows. */
export function useBalanceCollabs() {
  return useQuery(balanceCollabsQuery());
}
