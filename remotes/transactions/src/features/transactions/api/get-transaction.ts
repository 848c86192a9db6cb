import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toTransaction, type Transaction, type TransactionWire } from './types';

/** The input of the one-transaction read: a transaction id. */
export const transactionInput = z.object({ id: z.string().regex(/^\d+$/) });

export type TransactionInput = z.infer<typeof transactionInput>;

/**
 * fetchTransaction reads one transaction as it is now (GET
 * {gatewayUrl}/api/v1/transactions/{id}; the body is the transaction, with
 * its polling attempts). Merchant users get 404 for other merchants' ones.
 */
export async function fetchTransaction(input: TransactionInput, signal?: AbortSignal): Promise<Transaction> {
  const { id } = transactionInput.parse(input);
  return toTransaction(await api.get<TransactionWire>('gateway', `/api/v1/transactions/${id}`, { signal }));
}

/** transactionQuery is the query of one transaction; its key starts with 'transactions', so list reloads refresh it. */
export const transactionQuery = (input: TransactionInput) =>
  queryOptions({
    queryKey: ['transactions', 'one', input.id],
    queryFn: ({ signal }) => fetchTransaction(input, signal),
    retry: false,
  });

/** useTransaction reads one transaction. */
export function useTransaction(id: string) {
  return useQuery(transactionQuery({ id }));
}
