import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toTransaction, type Transaction, type TransactionWire } from './types';

/** The input of cancelling callback sending: the transaction and the status the operator saw. */
export const cancelCallbacksInput = z.object({ id: z.string().regex(/^\d+$/), seenStatus: z.number().int() });

export type CancelCallbacksInput = z.infer<typeof cancelCallbacksInput>;

/** cancelCallbacks stops a transaction's callbacks (POST {gatewayUrl}/api/v1/transactions/{id}/callbacks/cancel?transactionStatus={seen}). */
export async function cancelCallbacks(input: CancelCallbacksInput): Promise<Transaction> {
  const { id, seenStatus } = cancelCallbacksInput.parse(input);
  return toTransaction(
    await api.post<TransactionWire>('gateway', `/api/v1/transactions/${id}/callbacks/cancel`, undefined, { query: { transactionStatus: seenStatus } }),
  );
}

/** useCancelCallbacks is the mutation of cancelCallbacks. */
export function useCancelCallbacks() {
  return useMutation({ mutationFn: cancelCallbacks });
}
