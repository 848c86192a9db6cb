import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import type {
  ActivityServiceListCollabActivityResponseJson,
  ActivityServiceListMerchantCollabActivityResponseJson,
} from '@paygate/gen/gateway/v1/activity_pb';
import { z } from 'zod';

/** How far back the activity dialog looks, and how many entries it asks for. */
export const ACTIVITY_WINDOW_DAYS = 7;
export const ACTIVITY_LIMIT = 1000;

/**
 * The input of an activity read: one merchant's collab actions, or (no
 * merchant) every collab action the caller may see.
 */
export const activityLogsInput = z.object({
  merchantId: z.number().int().positive().optional(),
  limit: z.number().int().min(1).max(5000).default(ACTIVITY_LIMIT),
});

export type ActivityLogsInput = z.input<typeof activityLogsInput>;

/** ActivityAnswer is the Loki-like answer: one stream per entry, values [nanosecond timestamp, JSON message]. */
export type ActivityAnswer = ActivityServiceListCollabActivityResponseJson | ActivityServiceListMerchantCollabActivityResponseJson;

/**
 * fetchActivityLogs reads the collab activity of the last seven days
 * (GET {gatewayUrl}/api/v1/logs/merchants/{merchantId}/collabs/activity, or
 * /api/v1/logs/collabs/activity when no merchant applies).
 */
export async function fetchActivityLogs(input: ActivityLogsInput, signal?: AbortSignal, now = Date.now()): Promise<ActivityAnswer> {
  const { merchantId, limit } = activityLogsInput.parse(input);
  const path = merchantId === undefined ? '/api/v1/logs/collabs/activity' : `/api/v1/logs/merchants/${merchantId}/collabs/activity`;
  const from = new Date(now - ACTIVITY_WINDOW_DAYS * 86_400_000).toISOString();
  const to = new Date(now).toISOString();
  return (await api.get<ActivityAnswer>('gateway', path, { query: { from, to, limit }, signal })) ?? {};
}

/** activityLogsQuery is the query of one activity scope; it is read fresh every time the dialog opens. */
export const activityLogsQuery = (input: ActivityLogsInput) =>
  queryOptions({
    queryKey: ['activity-logs', input.merchantId ?? 'all'],
    queryFn: ({ signal }) => fetchActivityLogs(input, signal),
    staleTime: 0,
    gcTime: 0,
  });

/** useActivityLogs reads one activity scope. */
export function useActivityLogs(input: ActivityLogsInput) {
  return useQuery(activityLogsQuery(input));
}
