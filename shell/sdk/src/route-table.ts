import type { Permission } from './access';
import type { RemoteName } from './config';
import type { Call } from './may-call';
import type { RequirementName } from './requirement';

/** Access is the guard of one route (spec 01 §2 "Route table"). */
export type Access =
  /** Any signed-in user. */
  | { kind: 'login' }
  /** The Financial Dashboard: without Statistics Access the user goes to /transactions. */
  | { kind: 'dashboard' }
  /** At least one of the permissions; otherwise the first route the user may open, else /transactions. */
  | { kind: 'permissions'; permissions: readonly Permission[] }
  /**
   * A rule of the spec that names roles, restated as a requirement
   * (docs/access.md); otherwise / for users with Statistics Access, else
   * /transactions.
   */
  | { kind: 'requirement'; requirement: RequirementName }
  /** Edit User and a temporary password. */
  | { kind: 'change-password' }
  /** A temporary password: the same form for the users the Change Password route refuses. */
  | { kind: 'temporary-password' };

/**
 * ScreenOwner is who renders a screen: the shell itself (`/`, the Financial
 * Dashboard, ARCHITECTURE "Screens and the remote that owns them") or a remote.
 */
export type ScreenOwner = RemoteName | 'shell';

/** RouteSpec is one row of the route table. */
export interface RouteSpec {
  /** The route's path pattern. */
  path: string;
  /** Where a link to the route points (the path without optional parameters). */
  link: string;
  /** Page title after 'Paygate - ', and the page's heading. */
  title: string;
  /** The remote that provides the screen, or 'shell' for the shell's own. */
  remote: ScreenOwner;
  access: Access;
  /**
   * The calls the screen needs to be of use: the one that fills it, and for
   * Validation Endpoints the add, which the page itself requires (spec 02
   * §2). The sidebar shows an entry only when the server lets the user make
   * each of them (mayCall) and the guard lets the user in.
   */
  calls: readonly Call[];
}

/**
 * The route table of spec 01 §2 in its order (the order decides "the first
 * route the user may access"), keyed by screen: the one place a screen's
 * path, title, owner and guard are written. /login and the Not Found page
 * are the shell's, and so is / (remote 'shell'). The shell mounts these routes under their guards; the
 * sidebar links to them; each remote's `./routes` names its screens' paths
 * from here (`SCREENS.callbacks.path`).
 *
 * /simulate-payment: the route needs the role Admin while its sidebar entry
 * needs Create Transactions; the spec records both, and the requirement
 * createTransaction (admin-wide with Create Transactions) restates them.
 * Every "role" guard of the spec is a requirement here (docs/access.md).
 *
 * /temporary-password is not in the spec's table: it is the Change Password
 * form for a user whose role lacks Edit User, which /change-password refuses
 * (spec 01 §2), so that every user can replace a temporary password
 * (docs/contracts-security.md "Changing one's own password"). It is last,
 * so it is never "the first route the user may access".
 *
 * /approvals is not in the spec's table either: the four-eyes approval
 * requests (issue 28, docs/contracts-approvals.md), for any signed-in user
 * (the server lists its own requests and those it may decide). It comes
 * after every screen of the spec, so it changes no user's first route.
 *
 * /radar is not in the spec's table: the stuck-money radar (issue 29,
 * docs/contracts-radar.md), for users who read transactions. It comes after
 * the spec's screens too.
 * /alerts is not in the spec's table: the history of the watchlists' alerts
 * (issue 29, docs/contracts-watchlists.md), after Approvals for the same reason.
 */
export const SCREENS = {
  dashboard: { path: '/', link: '/', title: 'Financial Dashboard', remote: 'shell', access: { kind: 'dashboard' }, calls: ['GET /api/v1/statistics'] },
  providers: { path: '/providers', link: '/providers', title: 'Providers', remote: 'providers', access: { kind: 'permissions', permissions: ['Get Providers'] }, calls: ['GET /api/v1/merchant-collabs'] },
  merchants: { path: '/merchants', link: '/merchants', title: 'Merchants', remote: 'providers', access: { kind: 'requirement', requirement: 'allMerchants' }, calls: ['GET /api/v1/merchants'] },
  fees: { path: '/fees', link: '/fees', title: 'Fees', remote: 'providers', access: { kind: 'permissions', permissions: ['View Fees'] }, calls: ['GET /api/v1/fees'] },
  transactions: { path: '/transactions/:id?', link: '/transactions', title: 'Transactions', remote: 'transactions', access: { kind: 'permissions', permissions: ['Get Transactions'] }, calls: ['GET /api/v1/collabs/{collabId}/transactions/advanced'] },
  files: { path: '/files', link: '/files', title: 'Files', remote: 'files', access: { kind: 'permissions', permissions: ['Files Access'] }, calls: ['GET /api/v1/files'] },
  callbacks: { path: '/callbacks', link: '/callbacks', title: 'Callbacks', remote: 'transactions', access: { kind: 'requirement', requirement: 'callbacksAndValidation' }, calls: ['GET /api/v1/collabs/{collabId}/callbacks'] },
  validationEndpoints: { path: '/validation-endpoints', link: '/validation-endpoints', title: 'Validation Endpoints', remote: 'transactions', access: { kind: 'requirement', requirement: 'callbacksAndValidation' }, calls: ['GET /api/v1/collabs/{collabId}/validation-endpoints', 'POST /api/v1/collabs/validation-endpoints'] },
  fraudManagement: { path: '/fraud-management', link: '/fraud-management', title: 'Fraud Management', remote: 'transactions', access: { kind: 'permissions', permissions: ['View Frauds'] }, calls: ['GET /api/v1/frauds'] },
  balances: { path: '/balances', link: '/balances', title: 'Balances', remote: 'providers', access: { kind: 'permissions', permissions: ['Balance Access'] }, calls: ['GET /api/v1/balances/collabs'] },
  credentials: { path: '/credentials', link: '/credentials', title: 'Credentials', remote: 'providers', access: { kind: 'permissions', permissions: ['Credentials Access'] }, calls: ['GET /api/v1/credentials/collabs'] },
  accountSecurity: { path: '/account-security', link: '/account-security', title: 'Account Security', remote: 'security', access: { kind: 'login' }, calls: ['GET /api/v1/user-sessions/active'] },
  jobs: { path: '/jobs', link: '/jobs', title: 'Jobs', remote: 'providers', access: { kind: 'permissions', permissions: ['Jobs Access'] }, calls: ['GET /api/v1/jobs/stats'] },
  settings: { path: '/settings', link: '/settings', title: 'Settings', remote: 'providers', access: { kind: 'permissions', permissions: ['Settings Access'] }, calls: ['GET /api/v1/settings/keys'] },
  simulatePayment: { path: '/simulate-payment', link: '/simulate-payment', title: 'Create Transaction', remote: 'transactions', access: { kind: 'requirement', requirement: 'createTransaction' }, calls: ['GET /api/v1/providers', 'POST /api/v1/transactions/initialize'] },
  changePassword: { path: '/change-password', link: '/change-password', title: 'Change Password', remote: 'security', access: { kind: 'change-password' }, calls: ['POST /api/v1/user/change-password'] },
  approvals: { path: '/approvals', link: '/approvals', title: 'Approvals', remote: 'security', access: { kind: 'login' }, calls: ['GET /api/v1/approvals'] },
  radar: { path: '/radar', link: '/radar', title: 'Radar', remote: 'transactions', access: { kind: 'permissions', permissions: ['Get Transactions'] }, calls: ['GET /api/v1/radar/transactions'] },
  alerts: { path: '/alerts', link: '/alerts', title: 'Alerts', remote: 'transactions', access: { kind: 'permissions', permissions: ['Get Transactions'] }, calls: ['GET /api/v1/alerts'] },
  temporaryPassword: { path: '/temporary-password', link: '/temporary-password', title: 'Change Password', remote: 'security', access: { kind: 'temporary-password' }, calls: ['POST /api/v1/user/change-password'] },
} as const satisfies Record<string, RouteSpec>;

/** ScreenKey names a screen of the route table. */
export type ScreenKey = keyof typeof SCREENS;

/** ScreenPath is a path of the route table that a remote may provide a screen for. */
export type ScreenPath = (typeof SCREENS)[ScreenKey]['path'];

/** Route is a row of the route table with its key. */
export interface Route extends RouteSpec {
  key: ScreenKey;
  path: ScreenPath;
}

/** ROUTES is the route table as a list, in its order. */
export const ROUTES: readonly Route[] = (Object.keys(SCREENS) as ScreenKey[]).map((key) => ({ key, ...SCREENS[key] }));

/** SCREEN_PATHS are the route table's paths, in its order. */
export const SCREEN_PATHS: readonly ScreenPath[] = ROUTES.map((r) => r.path);

/** Where a signed-in user lands by default (spec 01 §9). */
export const DEFAULT_LANDING = SCREENS.transactions.link;
