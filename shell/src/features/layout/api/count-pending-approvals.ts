import { useQuery } from '@tanstack/react-query';
import type { CountPendingApprovalsResponseJson } from '@paygate/gen/auth/v1/approvals_pb';
import { api, mayCall, type User } from '@paygate/sdk';

/**
 * The key of the count. It sits under ['approvals'], the key prefix of the
 * security remote's approval lists, so that a decision made on the
 * Approvals page refreshes the sidebar's badge too.
 */
export const PENDING_APPROVALS_KEY = ['approvals', 'pending-count'] as const;

/** How often the sidebar asks again. */
export const PENDING_APPROVALS_REFRESH_MS = 15_000;

/**
 * fetchPendingApprovals counts the pending requests the caller may approve
 * (GET {authUrl}/api/v1/approvals/pending-count, docs/contracts-approvals.md).
 */
export async function fetchPendingApprovals(signal?: AbortSignal): Promise<number> {
  const res = await api.get<CountPendingApprovalsResponseJson | undefined>('auth', '/api/v1/approvals/pending-count', { signal });
  return res?.count ?? 0;
}

/**
 * usePendingApprovals reads the count every 15 s, when the server lets the
 * user ask (not with a temporary password); 0 until it is known or when the
 * call fails (the badge is a hint, the Approvals page says the rest).
 */
export function usePendingApprovals(user: User): number {
  const query = useQuery({
    queryKey: PENDING_APPROVALS_KEY,
    queryFn: ({ signal }) => fetchPendingApprovals(signal),
    enabled: mayCall(user, 'GET /api/v1/approvals/pending-count'),
    refetchInterval: PENDING_APPROVALS_REFRESH_MS,
    retry: false,
  });
  return query.data ?? 0;
}
