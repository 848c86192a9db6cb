// Code generated from services/internal/access (access.Requirements, access.BuiltInRoles) by services/internal/callrules (make call-rules). DO NOT EDIT.

import type { BuiltInRole, Requirement } from '../requirement';

/** REQUIREMENTS: the spec's role rules restated as permissions and the scope flag (docs/access.md). */
export const REQUIREMENTS = {
  allMerchants: { anyOf: [{ scope: 'global', permissions: ['Edit Collab'] }] },
  addCollabs: { anyOf: [{ scope: 'global', permissions: ['Edit Collab'] }, { scope: 'merchant', permissions: ['Get Providers', 'View Recent Actions'] }] },
  callbacksAndValidation: { anyOf: [{ permissions: ['Edit Collab'] }] },
  createTransaction: { anyOf: [{ scope: 'global', permissions: ['Create Transactions'] }] },
  platformSettings: { anyOf: [{ scope: 'global', permissions: ['Settings Access'] }] },
  changeJobs: { anyOf: [{ scope: 'global', permissions: ['Jobs Access', 'Settings Access'] }] },
  balances: { anyOf: [{ scope: 'merchant', permissions: ['Balance Access'] }, { scope: 'global', permissions: ['Balance Access', 'Credentials Access'] }] },
  globalFees: { anyOf: [{ scope: 'global', permissions: ['Edit Fees'] }] },
  adminOrMerchant: { anyOf: [{ scope: 'merchant', permissions: [] }, { scope: 'global', permissions: ['Edit Collab'] }] },
  manageRoles: { anyOf: [{ scope: 'global', permissions: ['Add Users', 'Edit User'] }] },
  securityPolicy: { anyOf: [{ scope: 'global', permissions: ['Settings Access', 'Edit User'] }] },
} as const satisfies Record<string, Requirement>;

/** BUILT_IN_ROLES: the six read-only roles of the seed, with their scope flag and grants. */
export const BUILT_IN_ROLES = [
  { id: 1, name: 'Admin', globalScope: true, permissions: ['Dashboard Access', 'Statistics Access', 'Get Transactions', 'Create Transactions', 'Edit Transactions', 'View Logs', 'Get Providers', 'GoVip Access', 'QRPh Access', 'FbPay Access', 'HumPas Access', 'Crypto Manager Access', 'Crypto Sender Access', 'RollingPay Access', 'Allow IP', 'Credentials Access', 'Balance Access', 'Settings Access', 'Jobs Access', 'Edit Collab', 'View Frauds', 'Edit Frauds', 'Cancel Callbacks', 'Files Access', 'View Recent Actions', 'View Fees', 'Edit Fees', 'Edit Maintenance Mode', 'Add Users', 'Edit User'] },
  { id: 2, name: 'Support', globalScope: true, permissions: ['Dashboard Access', 'Statistics Access', 'Get Transactions', 'View Logs', 'Get Providers', 'Balance Access', 'Jobs Access', 'View Frauds', 'Files Access', 'View Recent Actions', 'View Fees'] },
  { id: 3, name: 'Merchant', globalScope: false, permissions: ['Dashboard Access', 'Statistics Access', 'Get Transactions', 'Get Providers', 'Balance Access', 'Files Access', 'View Recent Actions', 'View Fees'] },
  { id: 4, name: 'Merchant Admin', globalScope: false, permissions: ['Dashboard Access', 'Statistics Access', 'Get Transactions', 'Edit Transactions', 'View Logs', 'Get Providers', 'Allow IP', 'Credentials Access', 'Balance Access', 'Edit Collab', 'View Frauds', 'Cancel Callbacks', 'Files Access', 'View Recent Actions', 'View Fees', 'Add Users', 'Edit User'] },
  { id: 5, name: 'Merchant Finance Manager', globalScope: false, permissions: ['Dashboard Access', 'Statistics Access', 'Get Transactions', 'Balance Access', 'Files Access', 'View Fees'] },
  { id: 6, name: 'Merchant Support', globalScope: false, permissions: ['Get Transactions', 'View Logs', 'Get Providers'] },
] as const satisfies readonly BuiltInRole[];
