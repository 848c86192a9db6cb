import { hasPermission, type User } from '@paygate/sdk';
import type { Transaction } from '../api/types';

/** RowActions are the buttons a row shows (spec 02 §2). */
export interface RowActions {
  edit: boolean;
  logs: boolean;
  additionalData: boolean;
  /** Export of this transaction through the export wizard; the export call needs Files Access. */
  export: boolean;
  /** Search in Logs prefilled from the row; the search needs View Logs, as the page's own button does. */
  searchInLogs: boolean;
  markFailed: boolean;
  /** 'Manual Load' for a deposit, 'Mark Success' for a withdrawal; null when not offered. */
  markSuccess: 'Manual Load' | 'Mark Success' | null;
}

/**
 * rowActions: edit needs Edit Transactions, logs and search in logs need View
 * Logs, export needs Files Access; a transaction whose callbacks are not cancelled offers Mark Failed
 * and, by direction, Manual Load (deposit) or Mark Success (withdrawal). The
 * manual actions change the status, so they also need Edit Transactions.
 */
export function rowActions(t: Pick<Transaction, 'transactionType' | 'isCallbackSendingCanceled'>, user: User | null): RowActions {
  const canEdit = hasPermission(user, 'Edit Transactions');
  const manual = canEdit && !t.isCallbackSendingCanceled;
  const logs = hasPermission(user, 'View Logs');
  return {
    edit: canEdit,
    logs,
    additionalData: true,
    export: hasPermission(user, 'Files Access'),
    searchInLogs: logs,
    markFailed: manual,
    markSuccess: manual ? (t.transactionType === 2 ? 'Mark Success' : 'Manual Load') : null,
  };
}

/** RowActionKey names one action of a row. */
export type RowActionKey = 'edit' | 'logs' | 'callbacks' | 'data' | 'export' | 'searchInLogs' | 'markFailed' | 'markSuccess';

/** RowActionItem is one offered action with its visible label. */
export interface RowActionItem {
  key: RowActionKey;
  label: string;
}

/** How many actions a row shows as buttons; the rest go in its actions menu. */
export const INLINE_ACTIONS = 2;

/**
 * rowActionLayout splits a row's offered actions so a row stays one line
 * high: the first two of edit, logs, callbacks, data, export and search in
 * logs (spec 02 §2's order) are buttons; the others and the manual status
 * actions (which change money state, so they sit one click further away)
 * are in the row's menu.
 */
export function rowActionLayout(a: RowActions): { inline: RowActionItem[]; menu: RowActionItem[] } {
  const views: RowActionItem[] = [];
  if (a.edit) views.push({ key: 'edit', label: 'Edit' });
  if (a.logs) views.push({ key: 'logs', label: 'Logs' });
  views.push({ key: 'callbacks', label: 'Callbacks' });
  if (a.additionalData) views.push({ key: 'data', label: 'Data' });
  if (a.export) views.push({ key: 'export', label: 'Export' });
  if (a.searchInLogs) views.push({ key: 'searchInLogs', label: 'Search in Logs' });
  const manual: RowActionItem[] = [];
  if (a.markFailed) manual.push({ key: 'markFailed', label: 'Mark Failed' });
  if (a.markSuccess) manual.push({ key: 'markSuccess', label: a.markSuccess });
  return { inline: views.slice(0, INLINE_ACTIONS), menu: [...views.slice(INLINE_ACTIONS), ...manual] };
}
