import type { Permission, User } from './access';
import { BUILT_IN_ROLES, REQUIREMENTS } from './call-rules/requirements.gen';

/**
 * Requirement is a rule of the spec that names roles ("Merchants: Admin"),
 * restated in permissions and the scope flag (docs/access.md
 * "Requirements"; Go: access.Requirement). A user meets it when it meets any
 * one of its lines: the scope matches (`global`: sees every merchant,
 * `merchant`: limited to its own, absent: either) and it holds every
 * permission of the line.
 */
export interface Requirement {
  readonly anyOf: readonly { readonly scope?: 'global' | 'merchant'; readonly permissions: readonly Permission[] }[];
}

/** BuiltInRole is one of the six read-only roles of the seed. */
export interface BuiltInRole {
  readonly id: number;
  readonly name: string;
  readonly globalScope: boolean;
  readonly permissions: readonly Permission[];
}

export { BUILT_IN_ROLES, REQUIREMENTS };

/** RequirementName names a requirement of the generated table. */
export type RequirementName = keyof typeof REQUIREMENTS;

/** holds tells whether a holder of the scope flag and the permissions meets the requirement (a role or a user). */
export function holds(globalScope: boolean, permissions: readonly string[], requirement: Requirement): boolean {
  return requirement.anyOf.some(
    (line) =>
      (line.scope === undefined || (line.scope === 'global') === globalScope) && line.permissions.every((p) => permissions.includes(p)),
  );
}

/** meets tells whether the user meets the named requirement: by permissions and scope flag, never by a role's name. */
export function meets(user: User | null | undefined, name: RequirementName): boolean {
  return !!user && holds(user.globalScope, user.permissions, REQUIREMENTS[name]);
}

/**
 * seesAllMerchants: the merchant-wide views of the pages (merchant filters
 * and tabs, per-merchant tables, "Merchant - Provider" collab names), which
 * the spec gives the Admin (requirement allMerchants).
 */
export function seesAllMerchants(user: User | null | undefined): boolean {
  return meets(user, 'allMerchants');
}
