import { BUILT_IN_ROLES, type AccessTokenClaims, type Permission, type TokenPair } from '@paygate/sdk';

/** Role names a built-in role of the seed (test users are described by them). */
export type Role = (typeof BUILT_IN_ROLES)[number]['name'];

/** The grants of docs/contracts.md (generated from the Go table), for building realistic test users. */
export const GRANTS = Object.fromEntries(BUILT_IN_ROLES.map((r) => [r.name, [...r.permissions]])) as Record<Role, Permission[]>;

/** The built-in roles that see every merchant (Admin, Support). */
const GLOBAL: readonly Role[] = BUILT_IN_ROLES.filter((r) => r.globalScope).map((r) => r.name);

function b64url(value: object): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** makeToken builds an (unsigned) access token with the claims; it expires in `ttlSeconds`. */
export function makeToken(claims: AccessTokenClaims, ttlSeconds = 300, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  return `${b64url({ alg: 'EdDSA', typ: 'JWT' })}.${b64url({ iss: 'paygate-auth', aud: 'paygate', iat, exp: iat + ttlSeconds, ...claims })}.signature`;
}

/**
 * TestUser describes a user by role or by explicit permissions. A role of
 * another name than the six is a custom role: give it its permissions and
 * scope flag.
 */
export interface TestUser {
  username?: string;
  roles?: (Role | (string & {}))[];
  permissions?: Permission[];
  merchantIds?: number[];
  isTemporaryPassword?: boolean;
  /** The scope flag; by default that of the built-in roles named (Admin and Support see every merchant). */
  globalScope?: boolean;
}

const isBuiltIn = (r: string): r is Role => r in GRANTS;

/** claimsFor fills the claims of a test user; permissions and scope default to the built-in roles'. */
export function claimsFor(u: TestUser): AccessTokenClaims {
  const roles = u.roles ?? [];
  const permissions = u.permissions ?? [...new Set(roles.filter(isBuiltIn).flatMap((r) => GRANTS[r]))];
  return {
    sub: '7',
    username: u.username ?? 'tester',
    roles,
    permissions,
    merchantIds: u.merchantIds ?? [],
    isTemporaryPassword: u.isTemporaryPassword ?? false,
    globalScope: u.globalScope ?? roles.some((r) => isBuiltIn(r) && GLOBAL.includes(r)),
    // The token version of this release (the scope flag is read as sent).
    ver: 2,
  };
}

/** tokensFor returns a token pair for a test user. */
export function tokensFor(u: TestUser, ttlSeconds = 300): TokenPair {
  return { accessToken: makeToken(claimsFor(u), ttlSeconds), refreshToken: `refresh-${u.username ?? 'tester'}` };
}

/** ADMIN, MERCHANT… are the demo users' shapes. */
export const ADMIN: TestUser = { username: 'admin', roles: ['Admin'] };
export const MERCHANT_USER: TestUser = { username: 'merchant', roles: ['Merchant'], merchantIds: [1] };
export const NEWCOMER: TestUser = { username: 'newcomer', roles: ['Merchant Admin'], merchantIds: [1], isTemporaryPassword: true };
