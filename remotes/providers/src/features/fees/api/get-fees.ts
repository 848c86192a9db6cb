import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ListFeesRequestJson, ListFeesResponseJson } from '@paygate/gen/gateway/v1/fees_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toFee, type Fee } from './types';

/** The filters and paging of the fee list (spec 02 §7, §9). */
export const feesInput = z.object({
  page: z.number().int().min(1),
  take: z.number().int().min(1).max(100),
  collabId: z.number().int().min(0).optional(),
  transactionType: z.number().int().min(0).max(2).optional(),
  payTypeId: z.number().int().min(0).optional(),
  currencyFromId: z.number().int().positive().optional(),
  currencyToId: z.number().int().positive().optional(),
  enabled: z.boolean().optional(),
}) satisfies z.ZodType<ListFeesRequestJson>;

export type FeesInput = z.infer<typeof feesInput>;

/** FeePage is one page of fees with its paging figures. */
export interface FeePage {
  fees: Fee[];
  totalCount: number;
  currentPage: number;
  totalPages: number;
}

/** fetchFees reads one page of fees (GET {gatewayUrl}/api/v1/fees?page&take&filters). */
export async function fetchFees(input: FeesInput, signal?: AbortSignal): Promise<FeePage> {
  const query = feesInput.parse(input);
  const body = await api.get<ListFeesResponseJson | undefined>('gateway', '/api/v1/fees', { query, signal });
  return {
    fees: (body?.fees ?? []).map(toFee),
    totalCount: Number(body?.totalCount ?? 0),
    currentPage: body?.currentPage ?? query.page,
    totalPages: body?.totalPages ?? 0,
  };
}

/** The key prefix of every fee read (lists, winners). */
export const FEES_KEY = ['fees'] as const;

/** feesQuery is the query of one page of fees. */
export const feesQuery = (input: FeesInput) =>
  queryOptions({
    queryKey: [...FEES_KEY, 'list', input],
    queryFn: ({ signal }) => fetchFees(input, signal),
    placeholderData: keepPreviousData,
  });

/** useFees reads one page of fees. */
export function useFees(input: FeesInput) {
  return useQuery(feesQuery(input));
}
