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

/** A bulk retry of failed callback deliveries as the callbacks service answers it (docs/contracts-bulk.md). */
const callbackRetrySchema = z.object({
  id: z.coerce.string(),
  state: z.string(),
  reason: z.string().default(''),
  createdBy: z.string().default(''),
  total: z.coerce.number().default(0),
  processed: z.coerce.number().default(0),
  retried: z.coerce.number().default(0),
  skipped: z.coerce.number().default(0),
  throughputPerSecond: z.coerce.number().default(0),
  createdAt: z.string().optional(),
});

/** CALLBACK_RETRY_ACTION is the action a callback retry run shows on the Jobs page. */
export const CALLBACK_RETRY_ACTION = 'callbackRetry';

export const CALLBACK_RETRIES_KEY = ['callback-retries'] as const;

/**
 * fetchCallbackRetries reads the newest 20 bulk retries of failed callbacks
 * (GET {gatewayUrl}/api/v1/callback-retries), shaped as bulk runs: retried
 * deliveries count as applied; a retry has no per-item failures.
 */
export async function fetchCallbackRetries(signal?: AbortSignal): Promise<BulkRun[]> {
  const body = await api.get<{ runs?: unknown[] }>('gateway', '/api/v1/callback-retries', { signal, query: { pageSize: 20 } });
  return z
    .array(callbackRetrySchema)
    .parse(body.runs ?? [])
    .map((r) => ({
      id: r.id,
      action: CALLBACK_RETRY_ACTION,
      state: r.state,
      reason: r.reason,
      createdBy: { username: r.createdBy },
      total: r.total,
      processed: r.processed,
      applied: r.retried,
      skipped: r.skipped,
      failed: 0,
      lastError: '',
      throughputPerSecond: r.throughputPerSecond,
      createdAt: r.createdAt,
    }));
}

/** useCallbackRetries reads the callback retry runs, every 2 s while one is queued or running. */
export function useCallbackRetries(enabled: boolean) {
  return useQuery({
    ...queryOptions({ queryKey: CALLBACK_RETRIES_KEY, queryFn: ({ signal }) => fetchCallbackRetries(signal) }),
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

/** changeCallbackRetry pauses, resumes or cancels a callback retry (POST {gatewayUrl}/api/v1/callback-retries/{id}/{verb}). */
export async function changeCallbackRetry(input: { id: string; verb: RunVerb }): Promise<void> {
  const verb = runVerb.parse(input.verb);
  await api.post('gateway', `/api/v1/callback-retries/${encodeURIComponent(input.id)}/${verb}`, {});
}

/** useChangeBulkRun is changeBulkRun's mutation; it reloads the runs. */
export function useChangeBulkRun() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: changeBulkRun, onSettled: () => qc.invalidateQueries({ queryKey: BULK_RUNS_KEY }) });
}

/** useChangeCallbackRetry is changeCallbackRetry's mutation; it reloads the retries. */
export function useChangeCallbackRetry() {
  const qc = useQueryClient();
  return useMutation({ mutationFn: changeCallbackRetry, onSettled: () => qc.invalidateQueries({ queryKey: CALLBACK_RETRIES_KEY }) });
}
