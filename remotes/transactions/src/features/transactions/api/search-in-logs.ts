import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The Search in Logs request (docs/contracts-transactions.md, "Search in logs"). */
export const searchInLogsInput = z.object({
  transactionType: z.number().int().min(1).max(2),
  fromDate: z.string().min(1),
  toDate: z.string().min(1),
  searchTerm: z.string().min(1).max(300),
  amount: z.string().regex(/^\d+(\.\d{1,2})?$/).optional(),
  currency: z.string().max(10).optional(),
  merchantClientId: z.string().max(120).optional(),
  timezoneOffsetMinutes: z.number().int().min(-840).max(840),
});

export type SearchInLogsInput = z.infer<typeof searchInLogsInput>;

/** LogSearchHit is one transaction found in the journal. */
export interface LogSearchHit {
  id: string;
  merchantName: string;
  providerName: string;
  merchantClientId: string;
  amount: string;
  currency: string;
  transactionStatus: number;
  createdUtc: string;
  updatedUtc: string;
  matchedJsonKey: string;
  /** 1 exact, 2 partial. */
  matchScore: number;
  jsonSource: string;
}

type Wire = { totalCount?: number; transactions?: Partial<Record<keyof LogSearchHit, unknown>>[] };

const s = (v: unknown) => (v === undefined || v === null ? '' : String(v));

/** searchInLogs finds transactions whose journal holds a term (POST {gatewayUrl}/api/v1/transactions/search-in-logs). */
export async function searchInLogs(input: SearchInLogsInput): Promise<{ totalCount: number; transactions: LogSearchHit[] }> {
  const body = searchInLogsInput.parse(input);
  const res = await api.post<Wire>('gateway', '/api/v1/transactions/search-in-logs', body);
  const transactions = (res?.transactions ?? []).map((t) => ({
    id: s(t.id),
    merchantName: s(t.merchantName),
    providerName: s(t.providerName),
    merchantClientId: s(t.merchantClientId),
    amount: s(t.amount),
    currency: s(t.currency),
    transactionStatus: Number(t.transactionStatus ?? 0),
    createdUtc: s(t.createdUtc),
    updatedUtc: s(t.updatedUtc),
    matchedJsonKey: s(t.matchedJsonKey),
    matchScore: Number(t.matchScore ?? 0),
    jsonSource: s(t.jsonSource),
  }));
  return { totalCount: res?.totalCount ?? transactions.length, transactions };
}

/** useSearchInLogs is the mutation of searchInLogs. */
export function useSearchInLogs() {
  return useMutation({ mutationFn: searchInLogs });
}
