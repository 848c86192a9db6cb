import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListRadarSlasResponseJson } from '@paygate/gen/gateway/v1/radar_pb';
import { api } from '@paygate/sdk';
import { toRadarSla, type RadarSla } from './types';

/** fetchSlas lists every SLA, the default first (GET /api/v1/radar/slas). */
export async function fetchSlas(signal?: AbortSignal): Promise<RadarSla[]> {
  const body = await api.get<ListRadarSlasResponseJson | undefined>('gateway', '/api/v1/radar/slas', { signal });
  return (body?.slas ?? []).map(toRadarSla);
}

/** The key of the SLA list. */
export const SLAS_KEY = ['radar', 'slas'] as const;

/** slasQuery is the query of the SLA list. */
export const slasQuery = () => queryOptions({ queryKey: SLAS_KEY, queryFn: ({ signal }) => fetchSlas(signal) });

/** useSlas reads the SLA list. */
export function useSlas() {
  return useQuery(slasQuery());
}
