import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The filter of a bulk retry of failed deliveries (docs/contracts-bulk.md). */
export const retryFilter = z.object({
  collabId: z.number().int().positive().optional(),
  merchantId: z.number().int().positive().optional(),
  callbackUrlId: z.number().int().positive().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  responseCode: z.number().int().min(100).max(599).optional(),
  attemptStatus: z.enum(['answered', 'unreachable']).optional(),
});
export type RetryFilter = z.infer<typeof retryFilter>;

const count = z.object({ key: z.coerce.number().default(0), reason: z.string().default(''), count: z.coerce.number() });

export const retryDryRunSchema = z.object({
  matched: z.coerce.number(),
  wouldRetry: z.coerce.number(),
  skipped: z.array(count).default([]),
  byMerchant: z.array(count).default([]),
  byResponseCode: z.array(count).default([]),
  sample: z
    .array(z.object({ deliveryId: z.coerce.string(), transactionId: z.coerce.string(), url: z.string().default(''), responseCode: z.number().default(0) }))
    .default([]),
  cap: z.coerce.number(),
  overCap: z.boolean().default(false),
});
export type RetryDryRun = z.infer<typeof retryDryRunSchema>;

/** dryRunRetry counts the failed deliveries a filter selects (POST {gatewayUrl}/api/v1/callback-retries/dry-run). */
export async function dryRunRetry(filter: RetryFilter): Promise<RetryDryRun> {
  return retryDryRunSchema.parse(await api.post('gateway', '/api/v1/callback-retries/dry-run', { filter: retryFilter.parse(filter) }));
}

/** startRetry starts a bulk retry (POST {gatewayUrl}/api/v1/callback-retries). */
export async function startRetry(input: { filter: RetryFilter; reason: string; expectedCount: number }): Promise<{ id: string }> {
  const body = await api.post<{ run: { id: string } }>('gateway', '/api/v1/callback-retries', {
    filter: retryFilter.parse(input.filter),
    reason: z.string().trim().min(1).max(500).parse(input.reason),
    expectedCount: input.expectedCount,
  });
  return { id: String(body.run.id) };
}

/** useRetryDryRun and useStartRetry are the mutations of the calls above. */
export function useRetryDryRun() {
  return useMutation({ mutationFn: dryRunRetry });
}
export function useStartRetry() {
  return useMutation({ mutationFn: startRetry });
}
