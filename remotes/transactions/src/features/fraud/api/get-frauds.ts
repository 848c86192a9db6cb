import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ListFraudsResponseJson } from '@paygate/gen/gateway/v1/frauds_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toFraud, type Fraud } from './types';

/** The filters and paging of the fraud list (spec 02 §3 Fraud filters); the page is 1-based on the server. */
export const fraudsInput = z.object({
  page: z.number().int().min(1),
  take: z.number().int().min(1).max(100),
  status: z.number().int().min(0).max(2).optional(),
  clientId: z.string().optional(),
  merchantId: z.number().int().positive().optional(),
  merchantClientId: z.string().optional(),
  transactionId: z.string().regex(/^\d+$/).optional(),
  referenceId: z.string().optional(),
  startDate: z.string().optional(),
  endDate: z.string().optional(),
});

export type FraudsInput = z.infer<typeof fraudsInput>;

/** FraudPage is one page of frauds with its paging figures. */
export interface FraudPage {
  frauds: Fraud[];
  totalCount: number;
  currentPage: number;
  totalPages: number;
}

/** fetchFrauds reads one page of frauds (GET {gatewayUrl}/api/v1/frauds with the filters as query parameters). */
export async function fetchFrauds(input: FraudsInput, signal?: AbortSignal): Promise<FraudPage> {
  const parsed = fraudsInput.parse(input);
  const query: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(parsed)) {
    if (v !== undefined && v !== '') query[k] = v;
  }
  const body = await api.get<ListFraudsResponseJson | undefined>('gateway', '/api/v1/frauds', { query, signal });
  return {
    frauds: (body?.clientFrauds ?? []).map(toFraud),
    totalCount: Number(body?.totalCount ?? 0),
    currentPage: body?.currentPage ?? parsed.page,
    totalPages: body?.totalPages ?? 0,
  };
}

/** The key prefix of every fraud list. */
export const FRAUDS_KEY = ['frauds', 'list'] as const;

/** fraudsQuery is the query of one page of frauds. */
export const fraudsQuery = (input: FraudsInput) =>
  queryOptions({
    queryKey: [...FRAUDS_KEY, input],
    queryFn: ({ signal }) => fetchFrauds(input, signal),
    placeholderData: keepPreviousData,
  });

/** useFrauds reads one page of frauds; `enabled` is false while the filters are invalid. */
export function useFrauds(input: FraudsInput, enabled = true) {
  return useQuery({ ...fraudsQuery(input), enabled });
}
