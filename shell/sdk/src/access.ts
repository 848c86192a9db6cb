import type { UserJson } from '@paygate/gen/auth/v1/auth_pb';

/** The role names of docs/contracts.md, exactly. */
export const ROLES = ['Admin', 'Support', 'Merchant', 'Merchant Admin', 'Merchant Finance Manager', 'Merchant Support'] as const;
export type Role = (typeof ROLES)[number];

/** Roles limited to their own merchants; a user with any of them is a merchant user. */
export const MERCHANT_ROLES: readonly Role[] = ['Merchant', 'Merchant Admin', 'Merchant Finance Manager', 'Merchant Support'];

/** The permission names of docs/contracts.md, exactly. */
export const PERMISSIONS = [
  'Dashboard Access',
  'Statistics Access',
  'Get Transactions',
  'Create Transactions',
  'Edit Transactions',
  'View Logs',
  'Get Providers',
  'GoVip Access',
  'QRPh Access',
  'FbPay Access',
  'HumPas Access',
  'Crypto Manager Access',
  'Crypto Sender Access',
  'RollingPay Access',
  'Allow IP',
  'Credentials Access',
  'Balance Access',
  'Settings Access',
  'Jobs Access',
  'Edit Collab',
  'View Frauds',
  'Edit Frauds',
  'Cancel Callbacks',
  'Files Access',
  'View Recent Actions',
  'View Fees',
  'Edit Fees',
  'Edit Maintenance Mode',
  'Add Users',
  'Edit User',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/**
 * User is the signed-in user: the generated `User` JSON type with every field
 * present (the token and validate-token both carry all of them).
 */
export type User = Required<UserJson>;

/** normalizeUser fills the fields proto3 JSON may omit (empty lists, false). */
export function normalizeUser(u: UserJson): User {
  return {
    id: u.id ?? '',
    username: u.username ?? '',
    roles: u.roles ?? [],
    permissions: u.permissions ?? [],
    merchantIds: u.merchantIds ?? [],
    isTemporaryPassword: u.isTemporaryPassword ?? false,
  };
}

/** hasPermission tells whether the user holds the permission. */
export function hasPermission(user: User | null | undefined, permission: Permission): boolean {
  return !!user && user.permissions.includes(permission);
}

/** hasAnyPermission tells whether the user holds at least one of the permissions. */
export function hasAnyPermission(user: User | null | undefined, permissions: readonly Permission[]): boolean {
  return permissions.some((p) => hasPermission(user, p));
}

/** hasRole tells whether the user has the role. */
export function hasRole(user: User | null | undefined, role: Role): boolean {
  return !!user && user.roles.includes(role);
}

/** hasAnyRole tells whether the user has at least one of the roles. */
export function hasAnyRole(user: User | null | undefined, roles: readonly Role[]): boolean {
  return roles.some((r) => hasRole(user, r));
}

/** isAdmin: the user has the role Admin. */
export function isAdmin(user: User | null | undefined): boolean {
  return hasRole(user, 'Admin');
}

/** isMerchant: the user has any merchant role. */
export function isMerchant(user: User | null | undefined): boolean {
  return hasAnyRole(user, MERCHANT_ROLES);
}
