import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ProviderJson } from '@paygate/gen/gateway/v1/collabs_pb';
import { api } from '@paygate/sdk';

/** ProviderOption is a provider with the pay types the form offers. */
export interface ProviderOption {
  id: number;
  name: string;
  payTypes: { id: number; name: string; code: string; cashIn: boolean; cashOut: boolean }[];
}

/** fetchProviders lists the providers and their pay types (GET {gatewayUrl}/api/v1/providers). */
export async function fetchProviders(signal?: AbortSignal): Promise<ProviderOption[]> {
  const list = await api.get<ProviderJson[]>('gateway', '/api/v1/providers', { signal });
  return (list ?? []).map((p) => ({
    id: p.id ?? 0,
    name: p.name ?? '',
    payTypes: (p.payTypes ?? []).map((t) => ({ id: t.id ?? 0, name: t.name ?? '', code: t.code ?? '', cashIn: t.cashIn ?? false, cashOut: t.cashOut ?? false })),
  }));
}

/** providersQuery is the query of the provider list. */
export const providersQuery = () =>
  queryOptions({ queryKey: ['providers'], queryFn: ({ signal }) => fetchProviders(signal), staleTime: 60_000 });

/** useProviders reads the provider list. */
export function useProviders() {
  return useQuery(providersQuery());
}
