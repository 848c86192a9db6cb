import { mayCall, type User } from '@paygate/sdk';
import type { Transaction } from '../api/types';

/** RowActions are the buttons a row shows (spec 02 §2). */
export interface RowActions {
  edit: boolean;
  logs: boolean;
  /** The Callback Attempts dialog. */
  callbacks: boolean;
  additionalData: boolean;
  /** Export of this transaction through the export wizard. */
  export: boolean;
  /** Search in Logs prefilled from the row. */
  searchInLogs: boolean;
  markFailed: boolean;
  /** 'Manual Load' for a deposit, 'Mark Success' for a withdrawal; null when not offered. */
  markSuccess: 'Manual Load' | 'Mark Success' | null;
}

/**
 * rowActions offers an action only when the server's rule for its call lets
 * the user in (docs/contracts.md): edit is the status override, logs the
 * transaction's logs, callbacks the attempts list, export the export call,
 * search in logs the log search. A transaction whose callbacks are not
 * cancelled offers Mark Failed (the manual cancel) and, by direction, Manual
 * Load (deposit) or Mark Success (withdrawal), which set Success and then
 * stop the callbacks, so they need both calls.
 */
export function rowActions(t: Pick<Transaction, 'transactionType' | 'isCallbackSendingCanceled'>, user: User | null): RowActions {
  const open = !t.isCallbackSendingCanceled;
  const markSuccess = open && mayCall(user, 'POST /api/v1/transactions/{id}/status/{status}') && mayCall(user, 'POST /api/v1/transactions/{id}/callbacks/cancel');
  return {
    edit: mayCall(user, 'POST /api/v1/transactions/{id}/status/{status}'),
    logs: mayCall(user, 'GET /api/v1/logs/transactions/{id}'),
    callbacks: mayCall(user, 'GET /api/v1/transactions/{id}/callbacks/attempts'),
    additionalData: true,
    export: mayCall(user, 'POST /api/v1/files/export'),
    searchInLogs: mayCall(user, 'POST /api/v1/transactions/search-in-logs'),
    markFailed: open && mayCall(user, 'POST /api/v1/transactions/{id}/cancel'),
    markSuccess: markSuccess ? (t.transactionType === 2 ? 'Mark Success' : 'Manual Load') : null,
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
  if (a.callbacks) views.push({ key: 'callbacks', label: 'Callbacks' });
  if (a.additionalData) views.push({ key: 'data', label: 'Data' });
  if (a.export) views.push({ key: 'export', label: 'Export' });
  if (a.searchInLogs) views.push({ key: 'searchInLogs', label: 'Search in Logs' });
  const manual: RowActionItem[] = [];
  if (a.markFailed) manual.push({ key: 'markFailed', label: 'Mark Failed' });
  if (a.markSuccess) manual.push({ key: 'markSuccess', label: a.markSuccess });
  return { inline: views.slice(0, INLINE_ACTIONS), menu: [...views.slice(INLINE_ACTIONS), ...manual] };
}
