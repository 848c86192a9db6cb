import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The bulk actions (docs/contracts-bulk.md), with their labels. */
export const BULK_ACTIONS = [
  { value: 'requeuePolling', label: 'Requeue polling' },
  { value: 'resendCallbacks', label: 'Resend callbacks' },
  { value: 'markFailed', label: 'Mark failed' },
  { value: 'cancelCallbacks', label: 'Cancel callbacks' },
  { value: 'export', label: 'Export' },
] as const;

export type BulkAction = (typeof BULK_ACTIONS)[number]['value'];

/** Why a transaction is skipped, in words. */
export const SKIP_REASONS: Record<string, string> = {
  final: 'Final already',
  notFinal: 'Not final yet',
  callbacksCancelled: 'Callbacks cancelled',
  noProviderId: 'No provider transaction id',
  pollingUnsupported: 'Provider does not support polling',
};

/** BulkFilter is the list's filter as ListTransactionsRequest's JSON. */
export const bulkFilter = z.record(z.string(), z.unknown());
export type BulkFilter = z.infer<typeof bulkFilter>;

const count = z.object({ key: z.number().optional().default(0), reason: z.string().optional().default(''), count: z.coerce.number() });

export const dryRunSchema = z.object({
  matched: z.coerce.number(),
  wouldApply: z.coerce.number(),
  skipped: z.array(count).default([]),
  byStatus: z.array(count).default([]),
  byCollab: z.array(count).default([]),
  sample: z
    .array(z.object({ id: z.coerce.string(), status: z.number().optional(), amount: z.string().optional(), currency: z.string().optional() }).passthrough())
    .default([]),
  cap: z.coerce.number(),
  overCap: z.boolean().default(false),
});
export type DryRun = z.infer<typeof dryRunSchema>;

/** dryRunBulkAction asks what an action would do over a filter (POST {gatewayUrl}/api/v1/bulk-actions/dry-run). */
export async function dryRunBulkAction(action: BulkAction, filter: BulkFilter): Promise<DryRun> {
  return dryRunSchema.parse(await api.post('gateway', '/api/v1/bulk-actions/dry-run', { action, filter: bulkFilter.parse(filter) }));
}

export const startInput = z.object({
  action: z.string(),
  filter: bulkFilter,
  reason: z.string().trim().min(1, 'A reason is required.').max(500),
  expectedCount: z.number().int().min(0),
});
export type StartInput = z.infer<typeof startInput>;

/** startBulkRun starts a run (POST {gatewayUrl}/api/v1/bulk-actions); a 428 opens the confirmation dialog. */
export async function startBulkRun(input: StartInput): Promise<{ id: string }> {
  const body = await api.post<{ run: { id: string } }>('gateway', '/api/v1/bulk-actions', startInput.parse(input));
  return { id: String(body.run.id) };
}

/** useDryRun and useStartBulkRun are the mutations of the calls above. */
export function useDryRun() {
  return useMutation({ mutationFn: (v: { action: BulkAction; filter: BulkFilter }) => dryRunBulkAction(v.action, v.filter) });
}
export function useStartBulkRun() {
  return useMutation({ mutationFn: startBulkRun });
}

/**
 * toBulkFilter is the list's query as a ListTransactionsRequest: the same
 * collab, merchant and filters the list sends (page and take left out).
 */
export function toBulkFilter(input: {
  collabId: number;
  merchantId?: number;
  search?: string;
  statuses?: number[];
  [k: string]: unknown;
}): BulkFilter {
  const out: BulkFilter = {};
  for (const [k, v] of Object.entries(input)) {
    if (k === 'page' || k === 'take' || k === 'includeTotalAmounts') continue;
    if (v === undefined || v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    out[k] = k === 'statuses' ? (v as number[]).map(String) : typeof v === 'string' ? v.trim() : v;
  }
  return out;
}
