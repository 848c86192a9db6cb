import { formatAmount } from '@paygate/sdk';
import type { Transaction } from '../api/types';
import { STATUS_CANCELLED, STATUS_SUCCESS, statusLabel } from '../../../utils/status';

/** ManualKind: 'load' marks Success (Manual Load / Mark Success), 'cancel' marks Cancelled (Mark Failed). */
export type ManualKind = 'load' | 'cancel';

/** ManualQuestion is what the confirmation of a manual action says. */
export interface ManualQuestion {
  title: string;
  message: string;
  confirmLabel: string;
  destructive: boolean;
}

/** manualLabel is the action's name as the row's menu shows it: Mark Failed, or Manual Load (deposit) / Mark Success (withdrawal). */
export function manualLabel(kind: ManualKind, t: Pick<Transaction, 'transactionType'>): string {
  if (kind === 'cancel') return 'Mark Failed';
  return t.transactionType === 2 ? 'Mark Success' : 'Manual Load';
}

/**
 * manualQuestion words the confirmation of a manual action (spec 02 §4):
 * which transaction, its amount, the status it will get, and what happens to
 * its callbacks. Both actions stop the callbacks: the gateway's cancel marks
 * Cancelled and stops them in one change; a manual load sets Success and then
 * cancels the callbacks, so the merchant is not told of either.
 */
export function manualQuestion(kind: ManualKind, t: Pick<Transaction, 'id' | 'transactionReferenceId' | 'amount' | 'currency' | 'transactionType'>): ManualQuestion {
  const label = manualLabel(kind, t);
  const status = statusLabel(kind === 'cancel' ? STATUS_CANCELLED : STATUS_SUCCESS);
  const name = t.transactionReferenceId ? `${t.transactionReferenceId} (ID ${t.id})` : `ID ${t.id}`;
  return {
    title: `${label}?`,
    message:
      `Transaction ${name} of ${formatAmount(t.amount, t.currency)} will be set to ${status}. ` +
      'Its callbacks will be stopped: the merchant will not be sent this result.',
    confirmLabel: label,
    destructive: kind === 'cancel',
  };
}
