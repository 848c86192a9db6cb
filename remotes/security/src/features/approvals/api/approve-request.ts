import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApproveRequestResponseJson } from '@paygate/gen/auth/v1/approvals_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { APPROVALS_KEY, toApprovalRequest, type ApprovalRequest } from './get-approvals';

/** The id of the request to approve. */
export const approveInput = z.string().regex(/^\d+$/);

/**
 * approveRequest approves a pending request and has it applied
 * (POST {authUrl}/api/v1/approvals/{id}/approve). Approving is itself a
 * sensitive action: the server answers 428 first, and the SDK's ApiClient
 * runs the confirmation (the shell's dialog) and repeats the call; a
 * cancelled confirmation rejects with an ApiError flagged `cancelled`. The
 * answer is the request, `approved` (applied) or `failed` (its service
 * refused it; `outcome` says why).
 */
export async function approveRequest(id: string): Promise<ApprovalRequest | undefined> {
  const res = await api.post<ApproveRequestResponseJson | undefined>('auth', `/api/v1/approvals/${approveInput.parse(id)}/approve`, {});
  return res?.request ? toApprovalRequest(res.request) : undefined;
}

/** useApproveRequest is the mutation of approveRequest; the lists and the sidebar's count reload afterwards. */
export function useApproveRequest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: approveRequest,
    onSettled: () => client.invalidateQueries({ queryKey: APPROVALS_KEY }),
  });
}
