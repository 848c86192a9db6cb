import { Button, Field, HStack, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { DialogFrame, errorMessage, mayCall, notify, useUser } from '@paygate/sdk';
import { useEffect, useState } from 'react';
import { useCancelCallbacks } from '../api/cancel-callbacks';
import { useEnqueueCallbacks } from '../api/enqueue-callbacks';
import { useEnqueueTransaction } from '../api/enqueue-transaction';
import { useSetTransactionStatus } from '../api/set-transaction-status';
import { useTransaction } from '../api/get-transaction';
import type { Transaction } from '../api/types';
import { pollingWarning, statusLabel, TRANSACTION_STATUSES } from '../../../utils/status';
import { ValidationResults } from './validation-results';

/** The queues of the Edit dialog (spec 02 §4); the callback queue is on the callbacks service. */
type Queue = 'transaction' | 'polling' | 'callback';

/** canCommit: a status is chosen and differs from the current one. */
export function canCommit(chosen: string, current: number): boolean {
  return chosen !== '' && Number(chosen) !== current;
}

/**
 * EditTransactionDialog overrides the status (any status; the UI restricts
 * nothing), shows the validation results with their settable status, puts
 * the transaction on the transaction, polling or callback queue, and cancels
 * callback sending (spec 02 §2). It reads the transaction afresh, so the
 * status it shows and sends as the one the operator saw is the current one;
 * when that read fails it says "Failed to find transaction: {msg}" (spec 02
 * §8) and keeps the row's copy.
 */
export function EditTransactionDialog({ transaction: row, onClose }: { transaction: Transaction; onClose: () => void }) {
  const user = useUser();
  // Each control shows only when the server's rule for its call lets the user in (docs/contracts.md).
  const may = {
    commit: mayCall(user, 'POST /api/v1/transactions/{id}/status/{status}'),
    transactionQueue: mayCall(user, 'POST /api/v1/transactions/{id}/enqueue'),
    pollingQueue: mayCall(user, 'POST /api/v1/transactions/{id}/polling/enqueue'),
    callbackQueue: mayCall(user, 'POST /api/v1/transactions/{id}/callbacks/enqueue'),
    cancelCallbacks: mayCall(user, 'POST /api/v1/transactions/{id}/callbacks/cancel'),
  };
  const current = useTransaction(row.id);
  const t = current.data ?? row;
  const findFailure = current.isError ? errorMessage(current.error, 'Unknown error') : null;
  useEffect(() => {
    if (findFailure) notify.error(`Failed to find transaction: ${findFailure}`);
  }, [findFailure]);
  const queryClient = useQueryClient();
  const [status, setStatus] = useState('');
  const setTransactionStatus = useSetTransactionStatus();
  const enqueue = useEnqueueTransaction();
  const enqueueCallbacks = useEnqueueCallbacks();
  const cancel = useCancelCallbacks();
  const reload = () => queryClient.invalidateQueries({ queryKey: ['transactions'] });

  async function commit() {
    try {
      await setTransactionStatus.mutateAsync({ id: t.id, status: Number(status), seenStatus: t.transactionStatus });
      notify.success('Status updated', `Transaction ${t.id} is now ${statusLabel(Number(status))}`);
      await reload();
      onClose();
    } catch (err) {
      notify.error('Failed to update status', errorMessage(err, ''));
      await reload();
    }
  }

  async function queue(q: Queue) {
    try {
      if (q === 'callback') await enqueueCallbacks.mutateAsync({ id: t.id });
      else await enqueue.mutateAsync({ id: t.id, queue: q });
      notify.success('Queued', `Transaction ${t.id} added to the ${q} queue`);
      await reload();
    } catch (err) {
      notify.error('Queue Operation Failed', `Failed to add to ${q} queue${errorMessage(err, '') ? `: ${errorMessage(err, '')}` : ''}`);
    }
  }

  async function cancelSending() {
    try {
      await cancel.mutateAsync({ id: t.id, seenStatus: t.transactionStatus });
      notify.success('Callbacks sending cancelled', `Transaction ${t.id}`);
      await reload();
      onClose();
    } catch (err) {
      notify.error('Failed to cancel callbacks sending', errorMessage(err, ''));
    }
  }

  return (
    <DialogFrame title="Edit transaction" onClose={onClose}>
      <Stack gap="5">
        <Text>
          Transaction {t.id} — current status: <strong>{statusLabel(t.transactionStatus)}</strong>
        </Text>
        {t.pollingAttempts > 0 && (
          <Text fontSize="sm" color={pollingWarning(t.pollingAttempts) ? 'orange.fg' : 'fg.muted'} data-polling-warning={pollingWarning(t.pollingAttempts)}>
            Polling attempts: {t.pollingAttempts}
            {pollingWarning(t.pollingAttempts) ? ' (more than 10: check the provider)' : ''}
          </Text>
        )}
        {may.commit && (
          <HStack align="end">
            <Field.Root>
              <Field.Label>New status</Field.Label>
              <NativeSelect.Root>
                <NativeSelect.Field value={status} onChange={(e) => setStatus(e.target.value)}>
                  <option value="">Select status</option>
                  {TRANSACTION_STATUSES.map((s) => (
                    <option key={s.value} value={s.value}>
                      {s.label} ({s.value})
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
            </Field.Root>
            <Button colorPalette="blue" disabled={!canCommit(status, t.transactionStatus)} loading={setTransactionStatus.isPending} onClick={() => void commit()}>
              Commit State Change
            </Button>
          </HStack>
        )}
        <ValidationResults transactionId={t.id} />
        {(may.transactionQueue || may.pollingQueue || may.callbackQueue) && (
          <Stack gap="2">
            <Text fontWeight="semibold">Queues</Text>
            <HStack wrap="wrap">
              {may.transactionQueue && (
                <Button size="sm" variant="outline" loading={enqueue.isPending && enqueue.variables?.queue === 'transaction'} onClick={() => void queue('transaction')}>
                  Add to Transaction Queue
                </Button>
              )}
              {may.pollingQueue && (
                <Button size="sm" variant="outline" loading={enqueue.isPending && enqueue.variables?.queue === 'polling'} onClick={() => void queue('polling')}>
                  Add to Polling Queue
                </Button>
              )}
              {may.callbackQueue && (
                <Button size="sm" variant="outline" loading={enqueueCallbacks.isPending} onClick={() => void queue('callback')}>
                  Add to Callback Queue
                </Button>
              )}
            </HStack>
          </Stack>
        )}
        {!t.isCallbackSendingCanceled && may.cancelCallbacks && (
          <Button size="sm" colorPalette="red" variant="outline" alignSelf="start" loading={cancel.isPending} onClick={() => void cancelSending()}>
            Cancel Callbacks Sending
          </Button>
        )}
      </Stack>
    </DialogFrame>
  );
}
