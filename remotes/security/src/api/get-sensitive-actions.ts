import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApprovalPolicyJson, ListSensitiveActionsResponseJson, SensitiveActionJson } from '@paygate/gen/auth/v1/confirmations_pb';
import { api } from '@paygate/sdk';

/** SensitiveAction is one action of the catalogue, every field present. */
export type SensitiveAction = Required<SensitiveActionJson>;

/** ApprovalPolicy is a four-eyes policy, every field present. */
export type ApprovalPolicy = Required<ApprovalPolicyJson>;

/** StepUpScope is whom step-up concerns. */
export type StepUpScope = 'admin_wide' | 'everyone' | 'none';

/** STEP_UP_SCOPES are the scopes the server takes, with their labels. */
export const STEP_UP_SCOPES: readonly { value: StepUpScope; label: string }[] = [
  { value: 'admin_wide', label: 'Admin-wide users' },
  { value: 'everyone', label: 'Everyone' },
  { value: 'none', label: 'Nobody' },
];

/** SensitiveActions is the catalogue with the step-up setting and the approval policies. */
export interface SensitiveActions {
  actions: SensitiveAction[];
  stepUpScope: StepUpScope;
  policies: ApprovalPolicy[];
}

/** toSensitiveAction fills the fields proto3 JSON leaves out. */
export function toSensitiveAction(a: SensitiveActionJson): SensitiveAction {
  return {
    name: a.name ?? '',
    title: a.title ?? '',
    stepUp: a.stepUp ?? false,
    reasonRequired: a.reasonRequired ?? false,
    alwaysStepUp: a.alwaysStepUp ?? false,
  };
}

/** toApprovalPolicy fills the fields proto3 JSON leaves out. */
export function toApprovalPolicy(p: ApprovalPolicyJson): ApprovalPolicy {
  return {
    id: p.id ?? 0,
    action: p.action ?? '',
    approverPermission: p.approverPermission ?? '',
    minAmount: p.minAmount ?? '',
    currency: p.currency ?? '',
    minCount: p.minCount ?? 0,
  };
}

/** toScope reads a scope, the server's default (admin-wide users) for anything else. */
export function toScope(s: string | undefined): StepUpScope {
  return s === 'everyone' || s === 'none' ? s : 'admin_wide';
}

/**
 * fetchSensitiveActions reads the catalogue of sensitive actions with the
 * step-up setting and the approval policies (GET {authUrl}/api/v1/sensitive-actions,
 * any signed-in user; docs/contracts-approvals.md "Settings").
 */
export async function fetchSensitiveActions(signal?: AbortSignal): Promise<SensitiveActions> {
  const res = await api.get<ListSensitiveActionsResponseJson | undefined>('auth', '/api/v1/sensitive-actions', { signal });
  return {
    actions: (res?.actions ?? []).map(toSensitiveAction),
    stepUpScope: toScope(res?.stepUpScope),
    policies: (res?.policies ?? []).map(toApprovalPolicy),
  };
}

/** The key of the catalogue; the step-up and policy changes refresh it. */
export const SENSITIVE_ACTIONS_KEY = ['security', 'sensitive-actions'] as const;

/** sensitiveActionsQuery is the query of the catalogue. */
export const sensitiveActionsQuery = () =>
  queryOptions({
    queryKey: SENSITIVE_ACTIONS_KEY,
    queryFn: ({ signal }) => fetchSensitiveActions(signal),
    staleTime: 60_000,
  });

/** useSensitiveActions reads the catalogue. */
export function useSensitiveActions() {
  return useQuery(sensitiveActionsQuery());
}
