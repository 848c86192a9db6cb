import { useQueryClient } from '@tanstack/react-query';
import { errorMessage, isApiError, notify } from '@paygate/sdk';
import { useState } from 'react';
import { cancelCallbacks } from '../api/cancel-callbacks';
import { cancelTransaction } from '../api/cancel-transaction';
import { setTransactionStatus } from '../api/set-transaction-status';
import type { Transaction } from '../api/types';
import type { ManualKind } from '../utils/manual-confirm';
import { STATUS_SUCCESS } from '../../../utils/status';

export type { ManualKind };

const TITLES: Record<ManualKind, string> = {
  load: 'Setting Manual Mode Failed',
  cancel: 'Setting Cancelled Status Failed',
};

/**
 * runManualAction performs a manual action with the status the operator saw
 * (spec 02 §4). Manual load sets Success, then stops callbacks; manual cancel
 * is one call. On 409 it reports the conflict and returns 'conflict' so the
 * caller reloads; other failures report and return 'failed'.
 */
export async function runManualAction(kind: ManualKind, t: Pick<Transaction, 'id' | 'transactionStatus'>): Promise<'ok' | 'conflict' | 'failed'> {
  try {
    if (kind === 'cancel') {
      await cancelTransaction({ id: t.id, seenStatus: t.transactionStatus });
    } else {
      await setTransactionStatus({ id: t.id, status: STATUS_SUCCESS, seenStatus: t.transactionStatus });
      await cancelCallbacks({ id: t.id, seenStatus: STATUS_SUCCESS });
    }
    return 'ok';
  } catch (err) {
    if (isApiError(err) && err.status === 409) {
      notify.error(`${TITLES[kind]} - Conflict`, `Transaction with id ${t.id} status changed. Reloading transactions...`);
      return 'conflict';
    }
    notify.error(TITLES[kind], errorMessage(err, 'Please try again.'));
    return 'failed';
  }
}

/** useManualAction runs manual actions for the rows and reloads the list afterwards (also after a conflict). */
export function useManualAction() {
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  async function run(kind: ManualKind, t: Transaction) {
    setBusy(t.id);
    try {
      const outcome = await runManualAction(kind, t);
      if (outcome === 'ok') notify.success(kind === 'load' ? 'Transaction marked Success' : 'Transaction marked Cancelled', `Transaction ${t.id}`);
      await queryClient.invalidateQueries({ queryKey: ['transactions'] });
    } finally {
      setBusy(null);
    }
  }
  return { run, busy };
}
