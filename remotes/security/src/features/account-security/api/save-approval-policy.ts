import { useMutation, useQueryClient } from '@tanstack/react-query';
import type {
  CreateApprovalPolicyRequestJson,
  CreateApprovalPolicyResponseJson,
  UpdateApprovalPolicyRequestJson,
  UpdateApprovalPolicyResponseJson,
} from '@paygate/gen/auth/v1/approvals_pb';
import { api, PERMISSIONS } from '@paygate/sdk';
import { z } from 'zod';
import { SENSITIVE_ACTIONS_KEY } from '../../../api/get-sensitive-actions';
import { APPROVAL_POLICIES_KEY } from './get-approval-policies';

/** The action no policy may name: approving a request cannot itself need approval. */
export const APPROVE_ACTION = 'approval.approve';

/**
 * policyInput is a four-eyes policy as the server checks it
 * (docs/contracts-approvals.md "Four-eyes approval"): an action, the
 * permission an approver must hold (one of the 30), and optional thresholds:
 * a minimum amount with its currency (or any currency), a minimum count.
 */
export const policyInput = z
  .object({
    action: z.string().trim().min(1, 'Choose an action.').refine((a) => a !== APPROVE_ACTION, 'Approving a request cannot itself need approval.'),
    approverPermission: z.enum(PERMISSIONS, 'Choose the permission an approver needs.'),
    minAmount: z
      .string()
      .trim()
      .regex(/^(\d+(\.\d+)?)?$/, 'Enter a non-negative number, such as 1000 or 99.50.'),
    currency: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^([A-Z]{3})?$/, 'Enter a three-letter code, such as EUR.'),
    minCount: z.number('Enter a whole number.').int('Enter a whole number.').min(0, 'Enter 0 or more.'),
  })
  .refine((p) => !p.currency || p.minAmount, { message: 'A currency goes with a minimum amount: set both, or neither.', path: ['currency'] });

export type PolicyInput = z.infer<typeof policyInput>;

/** createApprovalPolicy adds a policy (POST {authUrl}/api/v1/approval-policies {policy}). */
export async function createApprovalPolicy(input: PolicyInput): Promise<CreateApprovalPolicyResponseJson | undefined> {
  const body: CreateApprovalPolicyRequestJson = { policy: policyInput.parse(input) };
  return api.request<CreateApprovalPolicyResponseJson | undefined>('auth', '/api/v1/approval-policies', { method: 'POST', body });
}

/** updateApprovalPolicy replaces a policy (PUT {authUrl}/api/v1/approval-policies/{id} {policy}). */
export async function updateApprovalPolicy({ id, ...input }: PolicyInput & { id: number }): Promise<UpdateApprovalPolicyResponseJson | undefined> {
  // The id travels in the path only.
  const body: Omit<UpdateApprovalPolicyRequestJson, 'id'> = { policy: policyInput.parse(input) };
  return api.request<UpdateApprovalPolicyResponseJson | undefined>('auth', `/api/v1/approval-policies/${id}`, { method: 'PUT', body });
}

/** deleteApprovalPolicy removes a policy (DELETE {authUrl}/api/v1/approval-policies/{id}). */
export async function deleteApprovalPolicy(id: number): Promise<void> {
  await api.request('auth', `/api/v1/approval-policies/${id}`, { method: 'DELETE' });
}

/** useApprovalPolicyChanges are the mutations of the policies; the policies and the catalogue reload afterwards. */
export function useApprovalPolicyChanges() {
  const client = useQueryClient();
  const refresh = () =>
    Promise.all([client.invalidateQueries({ queryKey: APPROVAL_POLICIES_KEY }), client.invalidateQueries({ queryKey: SENSITIVE_ACTIONS_KEY })]);
  return {
    create: useMutation({ mutationFn: createApprovalPolicy, onSuccess: refresh }),
    update: useMutation({ mutationFn: updateApprovalPolicy, onSuccess: refresh }),
    remove: useMutation({ mutationFn: deleteApprovalPolicy, onSuccess: refresh }),
  };
}
