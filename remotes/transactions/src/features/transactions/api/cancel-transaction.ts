import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toTransaction, type Transaction, type TransactionWire } from './types';

/** The input of a manual cancel: the transaction and the status the operator saw. */
export const cancelTransactionInput = z.object({ id: z.string().regex(/^\d+$/), seenStatus: z.number().int() });

export type CancelTransactionInput = z.infer<typeof cancelTransactionInput>;

/**
 * cancelTransaction marks a transaction Cancelled and stops its callbacks
 * (POST {gatewayUrl}/api/v1/transactions/{id}/cancel?transactionStatus={seen}); 409 when the status changed.
 */
export async function cancelTransaction(input: CancelTransactionInput): Promise<Transaction> {
  const { id, seenStatus } = cancelTransactionInput.parse(input);
  return toTransaction(
    await api.post<TransactionWire>('gateway', `/api/v1/transactions/${id}/cancel`, undefined, { query: { transactionStatus: seenStatus } }),
  );
}

/** useCancelTransaction is the mutation of cancelTransaction. */
export function useCancelTransaction() {
  return useMutation({ mutationFn: cancelTransaction });
}
