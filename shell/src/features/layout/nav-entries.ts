import { hasPermission, mayCall, meets, SCREENS, type Permission, type ScreenKey, type User } from '@paygate/sdk';
import { decide } from '../../app/access-rules';

/** NavEntry is one sidebar link. */
export interface NavEntry {
  label: string;
  /** The screen of the route table the entry opens. */
  screen: ScreenKey;
  to: string;
  /** The entry's own condition, as spec 01 §2 "Sidebar" words it. */
  shown: (user: User) => boolean;
}

const can = (p: Permission) => (user: User) => hasPermission(user, p);

const entry = (label: string, screen: ScreenKey, shown: (user: User) => boolean): NavEntry => ({ label, screen, to: SCREENS[screen].link, shown });

/** The sidebar entries and their conditions, in the order of spec 01 §2 "Sidebar". */
export const NAV_ENTRIES: readonly NavEntry[] = [
  entry('Dashboard', 'dashboard', can('Statistics Access')),
  entry('Providers', 'providers', can('Get Providers')),
  entry('Balances', 'balances', can('Balance Access')),
  entry('Transactions', 'transactions', can('Get Transactions')),
  // Not in the spec: the stuck-money radar (issue 29).
  entry('Radar', 'radar', can('Get Transactions')),
  entry('Files', 'files', can('Files Access')),
  // "admin or merchant" for the entries, Admin or Merchant Admin for the
  // routes: one requirement restates both (docs/access.md).
  entry('Callbacks', 'callbacks', (u) => meets(u, 'callbacksAndValidation')),
  entry('Validation Endpoints', 'validationEndpoints', (u) => meets(u, 'callbacksAndValidation')),
  entry('Fraud Management', 'fraudManagement', can('View Frauds')),
  entry('Fee Management', 'fees', can('View Fees')),
  entry('Credentials', 'credentials', can('Credentials Access')),
  entry('Jobs', 'jobs', can('Jobs Access')),
  entry('Settings', 'settings', can('Settings Access')),
  // The route itself needs the requirement createTransaction (see the SDK's route-table.ts).
  entry('Create Transaction', 'simulatePayment', can('Create Transactions')),
  // Not in the spec: the four-eyes approval requests (issue 28), for every signed-in user.
  entry('Approvals', 'approvals', () => true),
  // Not in the spec: the watchlists' alerts (issue 29), for the list's readers.
  entry('Alerts', 'alerts', can('Get Transactions')),
  entry('Account Security', 'accountSecurity', () => true),
  entry('Change Password', 'changePassword', (u) => hasPermission(u, 'Edit User') && u.isTemporaryPassword),
];

/**
 * visible tells whether the sidebar shows an entry: its own condition (spec
 * 01 §2) holds, and the entry leads somewhere: its route's guard lets the
 * user in (no redirect) and the server lets the user make the calls the
 * screen needs (its route's `calls`). So no entry opens a redirect, a "not
 * authorized" page or a screen whose data the server refuses.
 */
export function visible(user: User, e: NavEntry): boolean {
  const screen = SCREENS[e.screen];
  return e.shown(user) && decide(user, screen).kind === 'allow' && screen.calls.every((c) => mayCall(user, c));
}

/** visibleEntries lists the entries the user may see. */
export function visibleEntries(user: User): NavEntry[] {
  return NAV_ENTRIES.filter((e) => visible(user, e));
}
