import { PERMISSIONS, type AccessTokenClaims, type Permission, type Role, type TokenPair } from '@paygate/sdk';

/** The grants of docs/contracts.md, for building realistic test users. */
const MERCHANT: Permission[] = [
  'Dashboard Access',
  'Statistics Access',
  'Get Transactions',
  'Get Providers',
  'Balance Access',
  'Files Access',
  'View Recent Actions',
  'View Fees',
];
export const GRANTS: Record<Role, Permission[]> = {
  Admin: [...PERMISSIONS],
  Support: [
    'Dashboard Access',
    'Statistics Access',
    'Get Transactions',
    'View Logs',
    'Get Providers',
    'Balance Access',
    'Files Access',
    'View Frauds',
    'View Recent Actions',
    'View Fees',
    'Jobs Access',
  ],
  Merchant: MERCHANT,
  'Merchant Admin': [
    ...MERCHANT,
    'Edit Transactions',
    'View Logs',
    'Edit Collab',
    'Credentials Access',
    'View Frauds',
    'Cancel Callbacks',
    'Allow IP',
    'Add Users',
    'Edit User',
  ],
  'Merchant Finance Manager': ['Dashboard Access', 'Statistics Access', 'Get Transactions', 'Balance Access', 'Files Access', 'View Fees'],
  'Merchant Support': ['Get Transactions', 'View Logs', 'Get Providers'],
};

function b64url(value: object): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** makeToken builds an (unsigned) access token with the claims; it expires in `ttlSeconds`. */
export function makeToken(claims: AccessTokenClaims, ttlSeconds = 300, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  return `${b64url({ alg: 'EdDSA', typ: 'JWT' })}.${b64url({ iss: 'paygate-auth', aud: 'paygate', iat, exp: iat + ttlSeconds, ...claims })}.signature`;
}

/** TestUser describes a user by role or by explicit permissions. */
export interface TestUser {
  username?: string;
  roles?: Role[];
  permissions?: Permission[];
  merchantIds?: number[];
  isTemporaryPassword?: boolean;
}

/** claimsFor fills the claims of a test user; permissions default to the roles' grants. */
export function claimsFor(u: TestUser): AccessTokenClaims {
  const roles = u.roles ?? [];
  const permissions = u.permissions ?? [...new Set(roles.flatMap((r) => GRANTS[r]))];
  return {
    sub: '7',
    username: u.username ?? 'tester',
    roles,
    permissions,
    merchantIds: u.merchantIds ?? [],
    isTemporaryPassword: u.isTemporaryPassword ?? false,
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
