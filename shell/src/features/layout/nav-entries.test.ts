import { BUILT_IN_ROLES, mayCall, normalizeUser, SCREENS, type User } from '@paygate/sdk';
import { GRANTS, type Role } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { decide } from '../../app/access-rules';
import { NAV_ENTRIES, visibleEntries } from './nav-entries';

const demo = (role: Role, merchantIds: number[] = role === 'Admin' ? [] : [1]): User =>
  normalizeUser({
    id: '7',
    username: role,
    roles: [role],
    permissions: GRANTS[role],
    merchantIds,
    globalScope: BUILT_IN_ROLES.some((r) => r.name === role && r.globalScope),
  });

const labels = (user: User) => visibleEntries(user).map((e) => e.label);

describe('sidebar entries by role: an entry shows only when it leads somewhere', () => {
  it.each<[Role, string[]]>([
    [
      'Admin',
      [
        'Dashboard',
        'Providers',
        'Balances',
        'Transactions',
        'Radar',
        'Files',
        'Callbacks',
        'Validation Endpoints',
        'Fraud Management',
        'Fee Management',
        'Credentials',
        'Jobs',
        'Settings',
        'Create Transaction',
        'Approvals',
        'Alerts',
        'Account Security',
      ],
    ],
    // Balance Access, but the balance calls are for admins and merchant users (spec 02 §6): no Balances.
    ['Support', ['Dashboard', 'Providers', 'Transactions', 'Radar', 'Files', 'Fraud Management', 'Fee Management', 'Jobs', 'Approvals', 'Alerts', 'Account Security']],
    // A merchant, but the Callbacks and Validation Endpoints routes are for Admin and Merchant Admin.
    ['Merchant', ['Dashboard', 'Providers', 'Balances', 'Transactions', 'Radar', 'Files', 'Fee Management', 'Approvals', 'Alerts', 'Account Security']],
    [
      'Merchant Admin',
      [
        'Dashboard',
        'Providers',
        'Balances',
        'Transactions',
        'Radar',
        'Files',
        'Callbacks',
        'Validation Endpoints',
        'Fraud Management',
        'Fee Management',
        'Credentials',
        'Approvals',
        'Alerts',
        'Account Security',
      ],
    ],
    ['Merchant Finance Manager', ['Dashboard', 'Balances', 'Transactions', 'Radar', 'Files', 'Fee Management', 'Approvals', 'Alerts', 'Account Security']],
    ['Merchant Support', ['Providers', 'Transactions', 'Radar', 'Approvals', 'Alerts', 'Account Security']],
  ])('%s', (role, want) => {
    expect(labels(demo(role))).toEqual(want);
  });

  it('never shows an entry whose route redirects or whose calls the server refuses, for any role', () => {
    for (const { name: role } of BUILT_IN_ROLES) {
      for (const temporary of [false, true]) {
        const user = { ...demo(role), isTemporaryPassword: temporary };
        for (const e of visibleEntries(user)) {
          const screen = SCREENS[e.screen];
          expect(decide(user, screen), `${role} ${e.label}`).toEqual({ kind: 'allow' });
          for (const call of screen.calls) expect(mayCall(user, call), `${role} ${e.label} ${call}`).toBe(true);
        }
      }
    }
  });

  it('keeps the entries of spec 01 §2 in its order, each linking to its route', () => {
    expect(NAV_ENTRIES.map((e) => [e.label, e.to])).toEqual([
      ['Dashboard', '/'],
      ['Providers', '/providers'],
      ['Balances', '/balances'],
      ['Transactions', '/transactions'],
      ['Radar', '/radar'],
      ['Files', '/files'],
      ['Callbacks', '/callbacks'],
      ['Validation Endpoints', '/validation-endpoints'],
      ['Fraud Management', '/fraud-management'],
      ['Fee Management', '/fees'],
      ['Credentials', '/credentials'],
      ['Jobs', '/jobs'],
      ['Settings', '/settings'],
      ['Create Transaction', '/simulate-payment'],
      ['Approvals', '/approvals'],
      ['Alerts', '/alerts'],
      ['Account Security', '/account-security'],
      ['Change Password', '/change-password'],
    ]);
  });
});
