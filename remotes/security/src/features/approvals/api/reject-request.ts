import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RejectRequestRequestJson, RejectRequestResponseJson } from '@paygate/gen/auth/v1/approvals_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { APPROVALS_KEY, toApprovalRequest, type ApprovalRequest } from './get-approvals';

/** The longest reason the console sends (the bound of a confirmation's reason). */
export const REJECT_REASON_MAX = 1000;

/** The input of a rejection: the request and why (required). */
export const rejectInput = z.object({
  id: z.string().regex(/^\d+$/),
  reason: z.string().trim().min(1, 'Enter why you reject this request.').max(REJECT_REASON_MAX, `Keep the reason under ${REJECT_REASON_MAX} characters.`),
}) satisfies z.ZodType<Omit<RejectRequestRequestJson, 'id'> & { id: string }>;

export type RejectInput = z.infer<typeof rejectInput>;

/** rejectRequest rejects a pending request (POST {authUrl}/api/v1/approvals/{id}/reject {reason}). */
export async function rejectRequest(input: RejectInput): Promise<ApprovalRequest | undefined> {
  const { id, reason } = rejectInput.parse(input);
  const res = await api.post<RejectRequestResponseJson | undefined>('auth', `/api/v1/approvals/${id}/reject`, { reason });
  return res?.request ? toApprovalRequest(res.request) : undefined;
}

/** useRejectRequest is the mutation of rejectRequest; the lists and the sidebar's count reload afterwards. */
export function useRejectRequest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: rejectRequest,
    onSettled: () => client.invalidateQueries({ queryKey: APPROVALS_KEY }),
  });
}
