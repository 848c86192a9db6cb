import type { UserJson } from '@paygate/gen/auth/v1/auth_pb';

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
 * present (the token and validate-token both carry all of them). What the
 * user may do follows `permissions` and `globalScope` (sees every merchant);
 * `roles` are names to show, never to decide by (docs/access.md).
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
    globalScope: u.globalScope ?? false,
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
