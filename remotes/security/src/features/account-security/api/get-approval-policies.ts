import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListApprovalPoliciesResponseJson } from '@paygate/gen/auth/v1/approvals_pb';
import { api } from '@paygate/sdk';
import { toApprovalPolicy, type ApprovalPolicy } from '../../../api/get-sensitive-actions';

/** fetchApprovalPolicies reads the four-eyes policies, by id (GET {authUrl}/api/v1/approval-policies). */
export async function fetchApprovalPolicies(signal?: AbortSignal): Promise<ApprovalPolicy[]> {
  const res = await api.get<ListApprovalPoliciesResponseJson | undefined>('auth', '/api/v1/approval-policies', { signal });
  return (res?.policies ?? []).map(toApprovalPolicy);
}

/** The key of the policy list; the policy changes refresh it. */
export const APPROVAL_POLICIES_KEY = ['security', 'approval-policies'] as const;

/** approvalPoliciesQuery is the query of the policies. */
export const approvalPoliciesQuery = () =>
  queryOptions({
    queryKey: APPROVAL_POLICIES_KEY,
    queryFn: ({ signal }) => fetchApprovalPolicies(signal),
  });

/** useApprovalPolicies reads the policies. */
export function useApprovalPolicies() {
  return useQuery(approvalPoliciesQuery());
}
