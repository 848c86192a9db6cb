import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CreateWatchlistResponseJson } from '@paygate/gen/gateway/v1/watchlists_pb';
import { api, thresholdProblem, WATCHLISTS_KEY } from '@paygate/sdk';
import { z } from 'zod';

/** The watchlist the Pin dialog sends (POST /api/v1/watchlists, docs/contracts-watchlists.md). */
export const createWatchlistInput = z
  .object({
    name: z.string().trim().min(1, 'Name is required.').max(100, 'Name must be at most 100 characters.'),
    metric: z.enum(['count', 'sum', 'successRate']),
    windowMinutes: z.number().int().min(5).max(1440),
    /** The list's filter (the query names of GET /api/v1/transactions). */
    filter: z.record(z.string(), z.unknown()),
    query: z.string().max(2000),
    viewId: z.string().optional(),
    threshold: z
      .object({
        comparison: z.enum(['above', 'below']),
        value: z.string().trim(),
        currency: z.string().optional(),
      })
      .optional(),
  })
  .superRefine((w, ctx) => {
    if (w.threshold && w.metric === 'sum' && !w.threshold.currency) ctx.addIssue({ code: 'custom', path: ['threshold', 'currency'], message: 'Choose the currency whose sum is compared.' });
    // The SDK's rules, which the strip's Edit dialog applies too.
    const problem = w.threshold ? thresholdProblem(w.metric, w.threshold.value) : '';
    if (problem) ctx.addIssue({ code: 'custom', path: ['threshold', 'value'], message: problem });
  });

export type CreateWatchlistInput = z.infer<typeof createWatchlistInput>;

/** createWatchlist pins a watchlist. */
export async function createWatchlist(input: CreateWatchlistInput) {
  const body = createWatchlistInput.parse(input);
  return (await api.post<CreateWatchlistResponseJson>('gateway', '/api/v1/watchlists', body)).watchlist;
}

/** useCreateWatchlist pins a watchlist and refreshes the strips. */
export function useCreateWatchlist() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createWatchlist,
    onSuccess: () => client.invalidateQueries({ queryKey: WATCHLISTS_KEY }),
  });
}
