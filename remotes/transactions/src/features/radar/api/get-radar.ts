import { useQueries } from '@tanstack/react-query';
import type { ListRadarTransactionsResponseJson } from '@paygate/gen/gateway/v1/radar_pb';
import { api } from '@paygate/sdk';
import { useState } from 'react';
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

/** Radar is a walk through the radar's pages, as far as the user loaded it. */
export interface Radar {
  pages: RadarPage[];
  isPending: boolean;
  isError: boolean;
  error: unknown;
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  /** The first page is being read again (Refresh provider status). */
  isRefreshing: boolean;
  loadMore: () => void;
  /** Starts the walk again, asking the providers again instead of reading their cached answers. */
  refreshProviders: () => void;
  retry: () => void;
}

/**
 * useRadar reads the radar page by page: the first page, then one more per loadMore (following
 * nextPageToken; useQueries, as the shared query library offers no infinite query to remotes). A
 * change of the filters starts a new walk.
 */
export function useRadar(input: RadarInput): Radar {
  const key = JSON.stringify(input);
  const [walk, setWalk] = useState({ key, gen: 0, refresh: false, tokens: [''] });
  if (walk.key !== key) setWalk({ key, gen: walk.gen + 1, refresh: false, tokens: [''] });
  const results = useQueries({
    queries: walk.tokens.map((token, i) => ({
      queryKey: [...RADAR_KEY, input, walk.gen, token],
      queryFn: ({ signal }: { signal: AbortSignal }) => fetchRadarPage(input, token, i === 0 && walk.refresh, signal),
      // The providers' answers are cached for 30 s on the server.
      staleTime: 30_000,
    })),
  });
  const pages = results.flatMap((r) => (r.data ? [r.data] : []));
  const last = results.at(-1);
  const next = pages.length === results.length ? (pages.at(-1)?.nextPageToken ?? '') : '';
  return {
    pages,
    isPending: results[0]?.isPending ?? true,
    isError: results.some((r) => r.isError),
    error: results.find((r) => r.isError)?.error,
    hasNextPage: next !== '',
    isFetchingNextPage: results.length > 1 && (last?.isPending ?? false),
    isRefreshing: walk.refresh && (results[0]?.isFetching ?? false),
    loadMore: () => next && setWalk((w) => (w.tokens.includes(next) ? w : { ...w, tokens: [...w.tokens, next] })),
    refreshProviders: () => setWalk((w) => ({ ...w, gen: w.gen + 1, refresh: true, tokens: [''] })),
    retry: () => void Promise.all(results.filter((r) => r.isError).map((r) => r.refetch())),
  };
}
