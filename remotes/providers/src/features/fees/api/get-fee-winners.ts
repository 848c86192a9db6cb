import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListFeeWinnersResponseJson } from '@paygate/gen/gateway/v1/fees_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { FEES_KEY } from './get-fees';

export const feeWinnersInput = z.object({ collabId: z.number().int().positive() });

export type FeeWinnersInput = z.infer<typeof feeWinnersInput>;

/** FeeWinner is the fee that applies to a collab's payments of one kind and amount range. */
export interface FeeWinner {
  transactionType: number;
  payTypeId: number;
  currency: string;
  amountMin: string;
  /** '' for no upper end. */
  amountMax: string;
  /** '0' for none. */
  feeId: string;
}

/** fetchFeeWinners asks which fee wins each kind of a collab's payments (GET {gatewayUrl}/api/v1/fees/winners?collabId). */
export async function fetchFeeWinners(input: FeeWinnersInput, signal?: AbortSignal): Promise<FeeWinner[]> {
  const { collabId } = feeWinnersInput.parse(input);
  const body = await api.get<ListFeeWinnersResponseJson | undefined>('gateway', '/api/v1/fees/winners', { query: { collabId }, signal });
  return (body?.winners ?? []).map((w) => ({
    transactionType: w.transactionType ?? 0,
    payTypeId: w.payTypeId ?? 0,
    currency: w.currency ?? '',
    amountMin: w.amountMin ?? '',
    amountMax: w.amountMax ?? '',
    feeId: String(w.feeId ?? '0'),
  }));
}

export const feeWinnersQuery = (input: FeeWinnersInput) =>
  queryOptions({
    queryKey: [...FEES_KEY, 'winners', input.collabId],
    queryFn: ({ signal }) => fetchFeeWinners(input, signal),
  });

/** useFeeWinners reads a collab's winners. */
export function useFeeWinners(input: FeeWinnersInput) {
  return useQuery(feeWinnersQuery(input));
}
