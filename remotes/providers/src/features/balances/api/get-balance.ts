import { queryOptions, useQueries } from '@tanstack/react-query';
import { api, errorMessage } from '@paygate/sdk';
import { z } from 'zod';
import type { BalanceJson } from '@paygate/gen/gateway/v1/balances_pb';
import type { BalanceCollab } from './list-balance-collabs';

/** The input of a balance read: the provider's path segment and the collab. */
export const balanceInput = z.object({
  providerPathSegment: z.string().trim().min(1),
  collabId: z.number().int().positive(),
});

export type BalanceInput = z.infer<typeof balanceInput>;

/** BalanceItem is one collab's balance (spec 02 §3 Balance item), defaults filled. */
export interface BalanceItem {
  collabId: number;
  providerPathSegment: string;
  amount: string;
  currency: string;
  updatedAt: string;
  isLive: boolean;
  accountId: string;
  accountType: string;
  additionalBalances: Record<string, string>;
  status: 'success' | 'unknown' | 'error';
  rawData: unknown;
  message: string;
}

/** failedItem is a balance that could not be read: empty amount in PHP (spec 02 §8). */
export function failedItem(input: BalanceInput, message: string): BalanceItem {
  return {
    collabId: input.collabId,
    providerPathSegment: input.providerPathSegment,
    amount: '',
    currency: 'PHP',
    updatedAt: '',
    isLive: false,
    accountId: '',
    accountType: 'Standard',
    additionalBalances: {},
    status: 'error',
    rawData: null,
    message,
  };
}

function toItem(input: BalanceInput, b: BalanceJson | undefined): BalanceItem {
  const status = b?.status === 'success' || b?.status === 'unknown' ? b.status : 'error';
  return {
    collabId: b?.collabId ?? input.collabId,
    providerPathSegment: b?.providerPathSegment ?? input.providerPathSegment,
    amount: b?.amount ?? '',
    currency: b?.currency || 'PHP',
    updatedAt: b?.updatedAt ?? '',
    isLive: b?.isLive ?? false,
    accountId: b?.accountId ?? '',
    accountType: b?.accountType || 'Standard',
    additionalBalances: b?.additionalBalances ?? {},
    status,
    rawData: b?.rawData ?? null,
    message: b?.message ?? '',
  };
}

/**
 * fetchBalance reads one collab's balance (GET
 * {gatewayUrl}/api/v1/providers/{providerPathSegment}/balance?collabId=…). A
 * call that fails gives a failed item rather than an error: one provider's
 * trouble never hides the others.
 */
export async function fetchBalance(input: BalanceInput, signal?: AbortSignal): Promise<BalanceItem> {
  const parsed = balanceInput.parse(input);
  try {
    const body = await api.get<BalanceJson>('gateway', `/api/v1/providers/${encodeURIComponent(parsed.providerPathSegment)}/balance`, {
      query: { collabId: parsed.collabId },
      signal,
    });
    return toItem(parsed, body);
  } catch (err) {
    if (signal?.aborted) throw err;
    return failedItem(parsed, errorMessage(err, 'The balance could not be read.'));
  }
}

/** balanceQuery is the query of one collab's balance; its key starts with 'balances', 'item'. */
export const balanceQuery = (input: BalanceInput) =>
  queryOptions({
    queryKey: ['balances', 'item', input.collabId, input.providerPathSegment],
    queryFn: ({ signal }) => fetchBalance(input, signal),
  });

/** useBalances reads the balance of every collab of the page. */
export function useBalances(collabs: readonly BalanceCollab[]) {
  return useQueries({
    queries: collabs.map((c) => balanceQuery({ collabId: c.collabId, providerPathSegment: c.providerPathSegment })),
  });
}
