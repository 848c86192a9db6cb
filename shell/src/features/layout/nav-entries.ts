import { hasPermission, isAdmin, isMerchant, type Permission, type User } from '@paygate/sdk';

/** NavEntry is one sidebar link. */
export interface NavEntry {
  label: string;
  to: string;
  visible: (user: User) => boolean;
}

const can = (p: Permission) => (user: User) => hasPermission(user, p);

/** The sidebar entries and their visibility, in the order of spec 01 §2 "Sidebar". */
export const NAV_ENTRIES: readonly NavEntry[] = [
  { label: 'Dashboard', to: '/', visible: can('Statistics Access') },
  { label: 'Providers', to: '/providers', visible: can('Get Providers') },
  { label: 'Balances', to: '/balances', visible: can('Balance Access') },
  { label: 'Transactions', to: '/transactions', visible: can('Get Transactions') },
  { label: 'Files', to: '/files', visible: can('Files Access') },
  { label: 'Callbacks', to: '/callbacks', visible: (u) => isAdmin(u) || isMerchant(u) },
  { label: 'Validation Endpoints', to: '/validation-endpoints', visible: (u) => isAdmin(u) || isMerchant(u) },
  { label: 'Fraud Management', to: '/fraud-management', visible: can('View Frauds') },
  { label: 'Fee Management', to: '/fees', visible: can('View Fees') },
  { label: 'Credentials', to: '/credentials', visible: can('Credentials Access') },
  { label: 'Jobs', to: '/jobs', visible: can('Jobs Access') },
  { label: 'Settings', to: '/settings', visible: can('Settings Access') },
  // The route itself needs the role Admin (see route-table.ts).
  { label: 'Create Transaction', to: '/simulate-payment', visible: can('Create Transactions') },
  { label: 'Account Security', to: '/account-security', visible: () => true },
  { label: 'Change Password', to: '/change-password', visible: (u) => hasPermission(u, 'Edit User') && u.isTemporaryPassword },
];

/** visibleEntries lists the entries the user may see. */
export function visibleEntries(user: User): NavEntry[] {
  return NAV_ENTRIES.filter((e) => e.visible(user));
}
