import { useInfiniteQuery } from '@tanstack/react-query';
import type { ListRadarTransactionsResponseJson } from '@paygate/gen/gateway/v1/radar_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toRadarRow, type RadarRow } from './types';

/** The radar's filters (GET /api/v1/radar/transactions); 0 means any. */
export const radarInput = z.object({
  providerId: z.number().int().min(0),
  merchantId: z.number().int().min(0),
  transactionType: z.number().int().min(0).max(2),
});

export type RadarInput = z.infer<typeof radarInput>;

/** The radar's page size. */
export const RADAR_TAKE = 50;

/** RadarPage is one page of the radar. */
export interface RadarPage {
  rows: RadarRow[];
  nextPageToken: string;
  asOf: string;
}

/**
 * fetchRadarPage reads one page of overdue transactions, oldest first; refresh asks the providers
 * again instead of reading their cached answers.
 */
export async function fetchRadarPage(input: RadarInput, pageToken: string, refresh: boolean, signal?: AbortSignal): Promise<RadarPage> {
  const parsed = radarInput.parse(input);
  const query: Record<string, string | number> = { take: RADAR_TAKE };
  for (const [k, v] of Object.entries(parsed)) if (v) query[k] = v;
  if (pageToken) query.pageToken = pageToken;
  if (refresh) query.refreshProviderStatus = 'true';
  const body = await api.get<ListRadarTransactionsResponseJson | undefined>('gateway', '/api/v1/radar/transactions', { query, signal });
  return { rows: (body?.transactions ?? []).map(toRadarRow), nextPageToken: body?.nextPageToken ?? '', asOf: body?.asOf ?? '' };
}

/** The key prefix of the radar's lists. */
export const RADAR_KEY = ['radar', 'transactions'] as const;

/**
 * useRadar reads the radar page by page ("Load more" follows nextPageToken). refreshNext makes the
 * next fetch of the first page ask the providers again.
 */
export function useRadar(input: RadarInput, refreshNext: { current: boolean }) {
  return useInfiniteQuery({
    queryKey: [...RADAR_KEY, input],
    initialPageParam: '',
    queryFn: ({ pageParam, signal }) => {
      const refresh = pageParam === '' && refreshNext.current;
      refreshNext.current = false;
      return fetchRadarPage(input, pageParam, refresh, signal);
    },
    getNextPageParam: (last) => last.nextPageToken || undefined,
  });
}
