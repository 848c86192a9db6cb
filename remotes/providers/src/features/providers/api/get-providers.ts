import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { toProvider, type Provider, type ProviderWire } from './types';

/** fetchProviders lists the providers with every pay type they offer (GET {gatewayUrl}/api/v1/providers). */
export async function fetchProviders(signal?: AbortSignal): Promise<Provider[]> {
  const list = await api.get<ProviderWire[]>('gateway', '/api/v1/providers', { signal });
  return (list ?? []).map(toProvider);
}

/** providersQuery is the query of the provider list. */
export const providersQuery = () =>
  queryOptions({
    queryKey: ['providers'],
    queryFn: ({ signal }) => fetchProviders(signal),
    staleTime: 60_000,
  });

/** useProviders reads the provider list; `enabled` defers the call until it is needed. */
export function useProviders(enabled = true) {
  return useQuery({ ...providersQuery(), enabled });
}
