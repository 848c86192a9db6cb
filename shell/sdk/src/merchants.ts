import { queryOptions } from '@tanstack/react-query';
import type { MerchantJson } from '@paygate/gen/gateway/v1/merchants_pb';
import { api } from './console';

/** Merchant is a merchant as the console's pickers list it (the Merchants page reads the other fields itself). */
export type Merchant = Required<Pick<MerchantJson, 'id' | 'name' | 'hash'>>;

/** fetchMerchants returns the merchants the caller may see (GET {gatewayUrl}/api/v1/merchants). */
export async function fetchMerchants(signal?: AbortSignal): Promise<Merchant[]> {
  const list = await api.get<MerchantJson[]>('gateway', '/api/v1/merchants', { signal });
  return (list ?? []).map((m) => ({ id: m.id ?? 0, name: m.name ?? '', hash: m.hash ?? '' }));
}

/** merchantsQuery is the query of the merchant list, cached per signed-in user. */
export const merchantsQuery = (username: string) =>
  queryOptions({
    queryKey: ['merchants', username],
    queryFn: ({ signal }) => fetchMerchants(signal),
    staleTime: 5 * 60_000,
  });

/** merchantLabel renders 'name (id)'. */
export function merchantLabel(m: Pick<Merchant, 'id' | 'name'>): string {
  return `${m.name} (${m.id})`;
}
