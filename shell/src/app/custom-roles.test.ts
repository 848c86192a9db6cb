import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_ROLES,
  CALL_RULES,
  mayCall,
  mayChangeGlobalFees,
  mayStartPayments,
  mayStopFraudCallbacks,
  meets,
  normalizeUser,
  REQUIREMENTS,
  ROUTES,
  seesAllMerchants,
  type CallMethod,
  type RequirementName,
  type User,
} from '@paygate/sdk';
import { visibleEntries } from '../features/layout/nav-entries';
import { decide, firstAccessibleRoute } from './access-rules';

/** holderOf is a user of the role: by name, permissions and flag, with merchants or not. */
const holderOf = (name: string, role: (typeof BUILT_IN_ROLES)[number], merchantIds: number[], isTemporaryPassword = false): User =>
  normalizeUser({ id: '7', username: 'u', roles: [name], permissions: [...role.permissions], merchantIds, isTemporaryPassword, globalScope: role.globalScope });

const helpers = { mayStartPayments, mayChangeGlobalFees, mayStopFraudCallbacks, seesAllMerchants };

/**
 * docs/access.md: a custom role with exactly the permissions and scope flag of
 * a built-in role gets exactly that role's access in the console: every
 * route's guard, every sidebar entry, every call of the servers' tables and
 * every helper that adds a handler's own check. The name plays no part.
 */
describe('a custom role with the set of a built-in role gets exactly its access', () => {
  for (const role of BUILT_IN_ROLES) {
    for (const merchantIds of [[], [1, 2]]) {
      for (const temporary of [false, true]) {
        it(`${role.name} (merchants [${merchantIds.join(',')}], temporary password ${temporary})`, () => {
          const builtIn = holderOf(role.name, role, merchantIds, temporary);
          const twin = holderOf(`Custom twin of ${role.name}`, role, merchantIds, temporary);
          for (const route of ROUTES) expect(decide(twin, route), route.path).toEqual(decide(builtIn, route));
          expect(firstAccessibleRoute(twin)).toEqual(firstAccessibleRoute(builtIn));
          expect(visibleEntries(twin).map((e) => e.label)).toEqual(visibleEntries(builtIn).map((e) => e.label));
          for (const method of Object.keys(CALL_RULES) as CallMethod[]) expect(mayCall(twin, method), method).toBe(mayCall(builtIn, method));
          for (const [name, helper] of Object.entries(helpers)) expect(helper(twin), name).toBe(helper(builtIn));
          for (const name of Object.keys(REQUIREMENTS) as RequirementName[]) expect(meets(twin, name), name).toBe(meets(builtIn, name));
        });
      }
    }
  }
});

describe('the requirements restate the spec role rules (docs/access.md)', () => {
  const meeting = (name: RequirementName) => BUILT_IN_ROLES.filter((r) => meets(holderOf(r.name, r, [1]), name)).map((r) => r.name);

  it.each<[RequirementName, string[]]>([
    ['allMerchants', ['Admin']],
    ['addCollabs', ['Admin', 'Merchant', 'Merchant Admin']],
    ['callbacksAndValidation', ['Admin', 'Merchant Admin']],
    ['createTransaction', ['Admin']],
    ['platformSettings', ['Admin']],
    ['changeJobs', ['Admin']],
    ['balances', ['Admin', 'Merchant', 'Merchant Admin', 'Merchant Finance Manager']],
    ['globalFees', ['Admin']],
    ['adminOrMerchant', ['Admin', 'Merchant', 'Merchant Admin', 'Merchant Finance Manager', 'Merchant Support']],
    ['manageRoles', ['Admin']],
  ])('%s is met by %j', (name, want) => {
    expect(meeting(name)).toEqual(want);
  });

  it('a role named Admin without the flag is not the Admin', () => {
    const admin = BUILT_IN_ROLES[0];
    const impostor = { ...holderOf('Admin', admin, [1]), globalScope: false };
    expect(decide(impostor, ROUTES.find((r) => r.key === 'merchants')!)).not.toEqual({ kind: 'allow' });
    expect(mayStartPayments(impostor)).toBe(false);
  });
});
