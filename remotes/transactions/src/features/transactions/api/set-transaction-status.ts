import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toTransaction, type Transaction, type TransactionWire } from './types';

/** The input of a status override: the new status and the status the operator saw. */
export const setTransactionStatusInput = z.object({
  id: z.string().regex(/^\d+$/),
  status: z.number().int(),
  seenStatus: z.number().int(),
});

export type SetTransactionStatusInput = z.infer<typeof setTransactionStatusInput>;

/**
 * setTransactionStatus overrides a status
 * (POST {gatewayUrl}/api/v1/transactions/{id}/status/{status}?transactionStatus={seen});
 * a 409 means the status changed since the operator saw it.
 */
export async function setTransactionStatus(input: SetTransactionStatusInput): Promise<Transaction> {
  const { id, status, seenStatus } = setTransactionStatusInput.parse(input);
  const body = await api.post<TransactionWire>('gateway', `/api/v1/transactions/${id}/status/${status}`, undefined, {
    query: { transactionStatus: seenStatus },
  });
  return toTransaction(body);
}

/** useSetTransactionStatus is the mutation of setTransactionStatus. */
export function useSetTransactionStatus() {
  return useMutation({ mutationFn: setTransactionStatus });
}
