import { hasPermission, type User } from '@paygate/sdk';
import type { Transaction } from '../api/types';

/** RowActions are the buttons a row shows (spec 02 §2). */
export interface RowActions {
  edit: boolean;
  logs: boolean;
  additionalData: boolean;
  markFailed: boolean;
  /** 'Manual Load' for a deposit, 'Mark Success' for a withdrawal; null when not offered. */
  markSuccess: 'Manual Load' | 'Mark Success' | null;
}

/**
 * rowActions: edit needs Edit Transactions, logs need View Logs; a
 * transaction whose callbacks are not cancelled offers Mark Failed and, by
 * direction, Manual Load (deposit) or Mark Success (withdrawal). The manual
 * actions change the status, so they also need Edit Transactions.
 */
export function rowActions(t: Pick<Transaction, 'transactionType' | 'isCallbackSendingCanceled'>, user: User | null): RowActions {
  const canEdit = hasPermission(user, 'Edit Transactions');
  const manual = canEdit && !t.isCallbackSendingCanceled;
  return {
    edit: canEdit,
    logs: hasPermission(user, 'View Logs'),
    additionalData: true,
    markFailed: manual,
    markSuccess: manual ? (t.transactionType === 2 ? 'Mark Success' : 'Manual Load') : null,
  };
}
