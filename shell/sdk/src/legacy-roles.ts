/**
 * Names the SDK exported before access was decided by requirements
 * (docs/access.md), kept so that a remote of the previous release still runs
 * on this host: the SDK's shared surface only grows (docs/console-releases.md).
 * Nothing in this workspace uses them (legacy-roles.test.ts fails if a file does); each
 * answers by the user's scope flag and permissions, never by a role's name,
 * so an old remote on this host treats a custom role as its permissions say.
 */
import type { User } from './access';
import { seesAllMerchants } from './requirement';

/** @deprecated The built-in role names; use BUILT_IN_ROLES. */
export const ROLES = ['Admin', 'Support', 'Merchant', 'Merchant Admin', 'Merchant Finance Manager', 'Merchant Support'] as const;

/** @deprecated The merchant-scoped built-in roles; decide by `user.globalScope`. */
export const MERCHANT_ROLES: readonly string[] = ['Merchant', 'Merchant Admin', 'Merchant Finance Manager', 'Merchant Support'];

/** @deprecated The built-in roles that saw the dashboard; decide by Statistics Access. */
export const DASHBOARD_ROLES: readonly string[] = ['Admin', 'Support', 'Merchant', 'Merchant Admin', 'Merchant Finance Manager'];

/** @deprecated The user's role names are for display; decide by permission (mayCall, meets). */
export function hasRole(user: User | null | undefined, role: string): boolean {
  return !!user && user.roles.includes(role);
}

/** @deprecated See hasRole. */
export function hasAnyRole(user: User | null | undefined, roles: readonly string[]): boolean {
  return roles.some((r) => hasRole(user, r));
}

/** @deprecated The admin-only views of before: the `allMerchants` requirement (seesAllMerchants). */
export function isAdmin(user: User | null | undefined): boolean {
  return seesAllMerchants(user);
}

/** @deprecated A merchant user of before: one limited to its own merchants. */
export function isMerchant(user: User | null | undefined): boolean {
  return !!user && !user.globalScope;
}
