import { http, HttpResponse } from 'msw';
import type { ApprovalRequestJson } from '@paygate/gen/auth/v1/approvals_pb';
import type { SensitiveActionJson } from '@paygate/gen/auth/v1/confirmations_pb';
import type { ActiveSessionJson } from '@paygate/gen/auth/v1/sessions_pb';
import type { ManagedUserJson, RoleJson } from '@paygate/gen/auth/v1/users_pb';
import { renderApp, withRemote } from '@paygate/devkit/testing';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import type { TestUser } from '@paygate/devkit/testing/tokens';
import '@paygate/devkit/testing/pointer-event';
import securityRoutes from '../routes';

/** The merchants every test user sees. */
export const MERCHANTS = [
  { id: 1, name: 'Acme Games', hash: 'h1' },
  { id: 2, name: 'Blue Bet', hash: 'h2' },
  { id: 3, name: 'Cobalt Pay', hash: 'h3' },
];

/** The roles the server offers. */
export const ROLES = [
  { id: 1, name: 'Admin' },
  { id: 2, name: 'Merchant Admin' },
  { id: 3, name: 'Merchant Support' },
];

/** role builds a role as ListRoles answers it: by default a custom merchant-scoped one. */
export function role(over: Partial<RoleJson> = {}): RoleJson {
  return { id: 101, name: 'Auditors', builtIn: false, permissions: ['Get Transactions'], globalScope: false, userCount: 0, ...over };
}

/** The shell's merchant filter (and the tabs' merchant names) read the merchants. */
export const merchantsHandler = () => http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS));

/** session builds an active session; the test user's token subject is '7'. */
export function session(over: Partial<ActiveSessionJson> = {}): ActiveSessionJson {
  return {
    id: '101',
    userId: '8',
    username: 'alice',
    userIp: '10.0.0.8',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    lastLoginUtc: '2026-01-05T10:00:00Z',
    refreshTokenExpiryUtc: new Date(Date.now() + 3 * 24 * 3_600_000 + 60_000).toISOString(),
    isCurrent: false,
    lastSeenUtc: '2026-01-05T10:05:00Z',
    ...over,
  };
}

/** managedUser builds a user of the Users tab. */
export function managedUser(over: Partial<ManagedUserJson> = {}): ManagedUserJson {
  return {
    id: '8',
    username: 'alice',
    merchantIds: [1],
    roleIds: [3],
    roles: ['Merchant Support'],
    isPaygateAdmin: false,
    isMerchantAdmin: false,
    isIpRestricted: false,
    isDisabled: false,
    isTemporaryPassword: false,
    hasPasskey: false,
    hasSecondFactor: false,
    ...over,
  };
}

/** renderSecurity opens /account-security (a tab by its ?tab= name) with the real security remote. */
export function renderSecurity(user: TestUser, tab?: 'passkeys' | 'ip-restrictions' | 'users' | 'roles' | 'two-factor' | 'password' | 'policy' | 'sensitive-actions') {
  server.use(merchantsHandler());
  return renderApp(`/account-security${tab ? `?tab=${tab}` : ''}`, { user, loader: withRemote(securityRoutes) });
}

/** A part of the catalogue of sensitive actions, as ListSensitiveActions answers it. */
export const SENSITIVE_ACTIONS: SensitiveActionJson[] = [
  { name: 'transaction.set_status', title: 'Override a transaction status', stepUp: true, reasonRequired: true },
  { name: 'fee.update', title: 'Change a fee', stepUp: true },
  { name: 'settings.set', title: 'Change a setting', stepUp: false },
  { name: 'approval.approve', title: 'Approve a request', stepUp: true, alwaysStepUp: true },
];

/** sensitiveActionsHandler answers the catalogue (with the scope and policies given). */
export const sensitiveActionsHandler = (over: { stepUpScope?: string; actions?: SensitiveActionJson[] } = {}) =>
  http.get(`${AUTH}/api/v1/sensitive-actions`, () =>
    HttpResponse.json({ actions: over.actions ?? SENSITIVE_ACTIONS, stepUpScope: over.stepUpScope ?? 'admin_wide', policies: [] }),
  );

/** approvalRequest builds an approval request of alice's (user 8) that the test user (7) may decide. */
export function approvalRequest(over: Partial<ApprovalRequestJson> = {}): ApprovalRequestJson {
  return {
    id: '12',
    action: 'fee.update',
    title: 'Change a fee',
    summary: ['Fee 4 of Acme Games', 'Percentage: 1.5 → 2.5'],
    description: JSON.stringify({
      action: 'fee.update',
      method: '/paygate.gateway.v1.FeeService/UpdateFee',
      targets: { id: '4' },
      values: { id: '4', percentage: '2.5' },
      observed: { percentage: '1.5' },
      reason: 'new contract',
    }),
    digest: 'ab'.repeat(32),
    reason: 'new contract',
    status: 'pending',
    requestedBy: '8',
    requestedByUsername: 'alice',
    requestedAt: '2026-01-05T10:00:00Z',
    expiresAt: '2026-01-06T10:00:00Z',
    approverPermission: 'Edit Fees',
    decidedBy: '0',
    proofs: [JSON.stringify({ kind: 'webauthn', role: 'requester', userId: 8, username: 'alice' })],
    canDecide: true,
    ...over,
  };
}

/** renderApprovals opens /approvals with the real security remote. */
export function renderApprovals(user: TestUser) {
  server.use(merchantsHandler());
  return renderApp('/approvals', { user, loader: withRemote(securityRoutes) });
}
