import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ProviderJson } from '@paygate/gen/gateway/v1/collabs_pb';
import { api } from '@paygate/sdk';

/** RadarProvider is a provider with its pay types, for the filter and the SLA dialog. */
export interface RadarProvider {
  id: number;
  name: string;
  payTypes: { id: number; name: string }[];
}

/** fetchProviders lists the providers and their pay types (GET /api/v1/providers). */
export async function fetchProviders(signal?: AbortSignal): Promise<RadarProvider[]> {
  const list = await api.get<ProviderJson[] | undefined>('gateway', '/api/v1/providers', { signal });
  return (list ?? []).map((p) => ({ id: p.id ?? 0, name: p.name ?? '', payTypes: (p.payTypes ?? []).map((t) => ({ id: t.id ?? 0, name: t.name ?? '' })) }));
}

/** useProviders reads the providers when the user may (Get Providers). */
export function useProviders(enabled: boolean) {
  return useQuery({ ...queryOptions({ queryKey: ['radar', 'providers'], queryFn: ({ signal }) => fetchProviders(signal), staleTime: 60_000 }), enabled });
}
