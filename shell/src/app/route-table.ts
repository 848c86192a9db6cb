import type { Permission, RemoteName, Role, ScreenPath } from '@paygate/sdk';

/** Access is the guard of one route (spec 01 §2 "Route table"). */
export type Access =
  /** Any signed-in user. */
  | { kind: 'login' }
  /** The Financial Dashboard: without Statistics Access the user goes to /transactions. */
  | { kind: 'dashboard' }
  /** At least one of the permissions; otherwise the first route the user may open, else /transactions. */
  | { kind: 'permissions'; permissions: readonly Permission[] }
  /** At least one of the roles; otherwise / for users with a dashboard role, else /transactions. */
  | { kind: 'roles'; roles: readonly Role[] }
  /** Edit User and a temporary password. */
  | { kind: 'change-password' };

/** RouteSpec is one row of the route table. */
export interface RouteSpec {
  path: ScreenPath;
  /** Where a link to the route points (the path without optional parameters). */
  link: string;
  /** Page title after 'Paygate - '. */
  title: string;
  /** The remote that provides the screen. */
  remote: RemoteName;
  access: Access;
}

/**
 * The route table of spec 01 §2 in its order (the order decides "the first
 * route the user may access"). /login and the Not Found page are the shell's.
 *
 * /simulate-payment: the route needs the role Admin while its sidebar entry
 * needs Create Transactions; the spec records both and so does the console.
 */
export const ROUTES: readonly RouteSpec[] = [
  { path: '/', link: '/', title: 'Financial Dashboard', remote: 'providers', access: { kind: 'dashboard' } },
  { path: '/providers', link: '/providers', title: 'Providers', remote: 'providers', access: { kind: 'permissions', permissions: ['Get Providers'] } },
  { path: '/merchants', link: '/merchants', title: 'Merchants', remote: 'providers', access: { kind: 'roles', roles: ['Admin'] } },
  { path: '/fees', link: '/fees', title: 'Fees', remote: 'providers', access: { kind: 'permissions', permissions: ['View Fees'] } },
  { path: '/transactions/:id?', link: '/transactions', title: 'Transactions', remote: 'transactions', access: { kind: 'permissions', permissions: ['Get Transactions'] } },
  { path: '/files', link: '/files', title: 'Files', remote: 'files', access: { kind: 'permissions', permissions: ['Files Access'] } },
  { path: '/callbacks', link: '/callbacks', title: 'Callbacks', remote: 'transactions', access: { kind: 'roles', roles: ['Admin', 'Merchant Admin'] } },
  { path: '/validation-endpoints', link: '/validation-endpoints', title: 'Validation Endpoints', remote: 'transactions', access: { kind: 'roles', roles: ['Admin', 'Merchant Admin'] } },
  { path: '/fraud-management', link: '/fraud-management', title: 'Fraud Management', remote: 'transactions', access: { kind: 'permissions', permissions: ['View Frauds'] } },
  { path: '/balances', link: '/balances', title: 'Balances', remote: 'providers', access: { kind: 'permissions', permissions: ['Balance Access'] } },
  { path: '/credentials', link: '/credentials', title: 'Credentials', remote: 'providers', access: { kind: 'permissions', permissions: ['Credentials Access'] } },
  { path: '/account-security', link: '/account-security', title: 'Account Security', remote: 'security', access: { kind: 'login' } },
  { path: '/jobs', link: '/jobs', title: 'Jobs', remote: 'files', access: { kind: 'permissions', permissions: ['Jobs Access'] } },
  { path: '/settings', link: '/settings', title: 'Settings', remote: 'providers', access: { kind: 'permissions', permissions: ['Settings Access'] } },
  { path: '/simulate-payment', link: '/simulate-payment', title: 'Create Transaction', remote: 'transactions', access: { kind: 'roles', roles: ['Admin'] } },
  { path: '/change-password', link: '/change-password', title: 'Change Password', remote: 'security', access: { kind: 'change-password' } },
];

/** Where a signed-in user lands by default (spec 01 §9). */
export const DEFAULT_LANDING = '/transactions';

/**
 * Roles that may open the dashboard. The spec does not name them; these are
 * the roles whose grants include Statistics Access (docs/contracts.md).
 */
export const DASHBOARD_ROLES: readonly Role[] = ['Admin', 'Support', 'Merchant', 'Merchant Admin', 'Merchant Finance Manager'];
