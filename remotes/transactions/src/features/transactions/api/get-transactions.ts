import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { api, isApiError } from '@paygate/sdk';
import { z } from 'zod';
import { EMPTY_LIST, toTransactionList, type TransactionList, type TransactionListWire } from './types';

/** The list filters of spec 02 §3 ("Transaction list filters"). */
export const transactionsInput = z.object({
  /** 0: every collab in the caller's scope. */
  collabId: z.number().int().min(0),
  /** Free text: all digits an id, else a reference id; the other filters are then left out. */
  search: z.string().max(100).optional(),
  page: z.number().int().min(1),
  take: z.number().int().min(1).max(100),
  type: z.number().int().min(0).max(2).optional(),
  statuses: z.array(z.number().int()).optional(),
  providerTid: z.string().optional(),
  merchantCid: z.string().optional(),
  nonce: z.string().optional(),
  from: z.string().optional(),
  to: z.string().optional(),
  minAmount: z.string().regex(/^\d*(\.\d{1,2})?$/).optional(),
  maxAmount: z.string().regex(/^\d*(\.\d{1,2})?$/).optional(),
  currency: z.string().optional(),
  paymentMethodValue: z.string().optional(),
  paymentMethodType: z.number().int().min(0).max(2).optional(),
  paymentIpAddress: z.string().optional(),
  includeTotalAmounts: z.boolean().optional(),
  merchantId: z.number().int().positive().optional(),
});

export type TransactionsInput = z.infer<typeof transactionsInput>;

const orUndefined = (s: string | undefined) => (s ? s : undefined);

/**
 * fetchTransactions reads one page of a collab's transactions
 * (GET {gatewayUrl}/api/v1/collabs/{id}/transactions/advanced, collab 0 =
 * all in scope). Statuses are sent comma-separated; a 404 gives an empty page
 * (spec 02 §8).
 */
export async function fetchTransactions(input: TransactionsInput, signal?: AbortSignal): Promise<TransactionList> {
  const i = transactionsInput.parse(input);
  try {
    const body = await api.get<TransactionListWire>('gateway', `/api/v1/collabs/${i.collabId}/transactions/advanced`, {
      signal,
      query: {
        search: orUndefined(i.search?.trim()),
        page: i.page,
        take: i.take,
        type: i.type || undefined,
        statuses: i.statuses?.length ? i.statuses.join(',') : undefined,
        providerTid: orUndefined(i.providerTid),
        merchantCid: orUndefined(i.merchantCid),
        nonce: orUndefined(i.nonce),
        from: i.from,
        to: i.to,
        minAmount: orUndefined(i.minAmount),
        maxAmount: orUndefined(i.maxAmount),
        currency: orUndefined(i.currency),
        paymentMethodValue: orUndefined(i.paymentMethodValue),
        paymentMethodType: i.paymentMethodValue ? i.paymentMethodType : undefined,
        paymentIpAddress: orUndefined(i.paymentIpAddress),
        includeTotalAmounts: i.includeTotalAmounts || undefined,
        MerchantId: i.merchantId,
      },
    });
    return toTransactionList(body);
  } catch (err) {
    if (isApiError(err) && err.status === 404) return EMPTY_LIST;
    throw err;
  }
}

/** transactionsQuery is the query of one list page; its key starts with 'transactions'. */
export const transactionsQuery = (input: TransactionsInput) =>
  queryOptions({
    queryKey: ['transactions', 'list', input],
    queryFn: ({ signal }) => fetchTransactions(input, signal),
    placeholderData: keepPreviousData,
  });

/** useTransactions reads a list page; `refetchInterval` keeps it fresh while no live stream exists. */
export function useTransactions(input: TransactionsInput | null, refetchInterval: number | false = false) {
  return useQuery({
    ...transactionsQuery(input ?? { collabId: 0, page: 1, take: 5 }),
    enabled: input !== null,
    refetchInterval,
    refetchIntervalInBackground: false,
  });
}
