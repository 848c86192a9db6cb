import { hasPermission, isAdmin, isMerchant, SCREENS, type Permission, type User } from '@paygate/sdk';

/** NavEntry is one sidebar link. */
export interface NavEntry {
  label: string;
  to: string;
  visible: (user: User) => boolean;
}

const can = (p: Permission) => (user: User) => hasPermission(user, p);

/** The sidebar entries and their visibility, in the order of spec 01 §2 "Sidebar". */
export const NAV_ENTRIES: readonly NavEntry[] = [
  { label: 'Dashboard', to: SCREENS.dashboard.link, visible: can('Statistics Access') },
  { label: 'Providers', to: SCREENS.providers.link, visible: can('Get Providers') },
  { label: 'Balances', to: SCREENS.balances.link, visible: can('Balance Access') },
  { label: 'Transactions', to: SCREENS.transactions.link, visible: can('Get Transactions') },
  { label: 'Files', to: SCREENS.files.link, visible: can('Files Access') },
  { label: 'Callbacks', to: SCREENS.callbacks.link, visible: (u) => isAdmin(u) || isMerchant(u) },
  { label: 'Validation Endpoints', to: SCREENS.validationEndpoints.link, visible: (u) => isAdmin(u) || isMerchant(u) },
  { label: 'Fraud Management', to: SCREENS.fraudManagement.link, visible: can('View Frauds') },
  { label: 'Fee Management', to: SCREENS.fees.link, visible: can('View Fees') },
  { label: 'Credentials', to: SCREENS.credentials.link, visible: can('Credentials Access') },
  { label: 'Jobs', to: SCREENS.jobs.link, visible: can('Jobs Access') },
  { label: 'Settings', to: SCREENS.settings.link, visible: can('Settings Access') },
  // The route itself needs the role Admin (see the SDK's route-table.ts).
  { label: 'Create Transaction', to: SCREENS.simulatePayment.link, visible: can('Create Transactions') },
  { label: 'Account Security', to: SCREENS.accountSecurity.link, visible: () => true },
  { label: 'Change Password', to: SCREENS.changePassword.link, visible: (u) => hasPermission(u, 'Edit User') && u.isTemporaryPassword },
];

/** visibleEntries lists the entries the user may see. */
export function visibleEntries(user: User): NavEntry[] {
  return NAV_ENTRIES.filter((e) => e.visible(user));
}
