import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import type { TransactionLogWire } from './types';

/** The input of the journal read: a transaction id. */
export const transactionLogsInput = z.object({ id: z.string().regex(/^\d+$/) });

export type TransactionLogsInput = z.infer<typeof transactionLogsInput>;

/** fetchTransactionLogs reads a transaction's journal, oldest first (GET {gatewayUrl}/api/v1/logs/transactions/{id}). */
export async function fetchTransactionLogs(input: TransactionLogsInput, signal?: AbortSignal): Promise<unknown> {
  const { id } = transactionLogsInput.parse(input);
  // Left unknown on purpose: the viewer checks the shape and says "Failed to parse logs" when it is wrong.
  return api.get<unknown>('gateway', `/api/v1/logs/transactions/${id}`, { signal });
}

/** transactionLogsQuery is the query of a journal. */
export const transactionLogsQuery = (input: TransactionLogsInput) =>
  queryOptions({
    queryKey: ['transactions', 'logs', input.id],
    queryFn: ({ signal }) => fetchTransactionLogs(input, signal),
  });

/** useTransactionLogs reads a journal. */
export function useTransactionLogs(id: string) {
  return useQuery(transactionLogsQuery({ id }));
}

export type { TransactionLogWire };
