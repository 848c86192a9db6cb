import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** A bulk run as the gateway answers it (docs/contracts-bulk.md). */
export const bulkRunSchema = z.object({
  id: z.coerce.string(),
  action: z.string(),
  state: z.string(),
  reason: z.string().default(''),
  createdBy: z.object({ username: z.string().default('') }).partial().optional(),
  total: z.coerce.number().default(0),
  processed: z.coerce.number().default(0),
  applied: z.coerce.number().default(0),
  skipped: z.coerce.number().default(0),
  failed: z.coerce.number().default(0),
  lastError: z.string().default(''),
  throughputPerSecond: z.coerce.number().default(0),
  createdAt: z.string().optional(),
});
export type BulkRun = z.infer<typeof bulkRunSchema>;

export const BULK_RUNS_KEY = ['bulk-actions'] as const;

/** fetchBulkRuns reads the newest 20 runs (GET {gatewayUrl}/api/v1/bulk-actions). */
export async function fetchBulkRuns(signal?: AbortSignal): Promise<BulkRun[]> {
  const body = await api.get<{ runs?: unknown[] }>('gateway', '/api/v1/bulk-actions', { signal, query: { pageSize: 20 } });
  return z.array(bulkRunSchema).parse(body.runs ?? []);
}

/** useBulkRuns reads the runs, every 2 s while one is queued or running. */
export function useBulkRuns(enabled: boolean) {
  return useQuery({
    ...queryOptions({ queryKey: BULK_RUNS_KEY, queryFn: ({ signal }) => fetchBulkRuns(signal) }),
    enabled,
    refetchInterval: (q) => (q.state.data?.some((r) => r.state === 'queued' || r.state === 'running') ? 2000 : false),
  });
}

export const runVerb = z.enum(['pause', 'resume', 'cancel']);
export type RunVerb = z.infer<typeof runVerb>;

/** changeBulkRun pauses, resumes or cancels a run (POST {gatewayUrl}/api/v1/bulk-actions/{id}/{verb}). */
export async function changeBulkRun(input: { id: string; verb: RunVerb }): Promise<BulkRun> {
  const verb = runVerb.parse(input.verb);
  const body = await api.post<{ run: unknown }>('gateway', `/api/v1/bulk-actions/${encodeURIComponent(input.id)}/${verb}`, {});
  return bulkRunSchema.parse(body.run);
}

/** useChangeBulkRun is changeBulkRun's mutation; it reloads the runs. */
export function useChangeBulkRun() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: changeBulkRun, onSettled: () => qc.invalidateQueries({ queryKey: BULK_RUNS_KEY }) });
}
