import { http, HttpResponse } from 'msw';
import type { ActiveSessionJson } from '@paygate/gen/auth/v1/sessions_pb';
import type { ManagedUserJson, RoleJson } from '@paygate/gen/auth/v1/users_pb';
import { renderApp, withRemote } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
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
export function renderSecurity(user: TestUser, tab?: 'passkeys' | 'ip-restrictions' | 'users' | 'roles' | 'two-factor' | 'password' | 'policy') {
  server.use(merchantsHandler());
  return renderApp(`/account-security${tab ? `?tab=${tab}` : ''}`, { user, loader: withRemote(securityRoutes) });
}
