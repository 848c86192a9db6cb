import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ActiveSessionJson, ListActiveSessionsResponseJson } from '@paygate/gen/auth/v1/sessions_pb';
import { api, isApiError } from '@paygate/sdk';
import { z } from 'zod';

/** The filters of the active sessions list (server-side paging, spec 02 §9). */
export const activeSessionsInput = z.object({
  merchantId: z.number().int().positive().optional(),
  page: z.number().int().min(1),
  take: z.number().int().min(1).max(100),
  search: z.string().trim().optional(),
});

export type ActiveSessionsInput = z.infer<typeof activeSessionsInput>;

/** ActiveSessions is one page of sessions with its paging figures filled in. */
export interface ActiveSessions {
  sessions: ActiveSessionJson[];
  totalCount: number;
  currentPage: number;
  totalPages: number;
}

const EMPTY: ActiveSessions = { sessions: [], totalCount: 0, currentPage: 1, totalPages: 0 };

/** A 404 or a "not found" message means there are no sessions (spec 02 §8). */
function isNotFound(err: unknown): boolean {
  return isApiError(err) && (err.status === 404 || /not found/i.test(err.message));
}

/**
 * fetchActiveSessions reads one page of active sessions
 * (GET {gatewayUrl}/api/v1/user-sessions/active?merchantId&page&take&search).
 */
export async function fetchActiveSessions(input: ActiveSessionsInput, signal?: AbortSignal): Promise<ActiveSessions> {
  const { merchantId, page, take, search } = activeSessionsInput.parse(input);
  try {
    const res = await api.get<ListActiveSessionsResponseJson>('gateway', '/api/v1/user-sessions/active', {
      query: { merchantId, page, take, search: search || undefined },
      signal,
    });
    return {
      sessions: res?.sessions ?? [],
      totalCount: Number(res?.totalCount ?? 0),
      currentPage: res?.currentPage ?? page,
      totalPages: res?.totalPages ?? 0,
    };
  } catch (err) {
    if (isNotFound(err)) return { ...EMPTY, currentPage: page };
    throw err;
  }
}

/** The key prefix of every active sessions query. */
export const ACTIVE_SESSIONS_KEY = ['security', 'active-sessions'] as const;

/** activeSessionsQuery is the query of one page of sessions. */
export const activeSessionsQuery = (input: ActiveSessionsInput) =>
  queryOptions({
    queryKey: [...ACTIVE_SESSIONS_KEY, input],
    queryFn: ({ signal }) => fetchActiveSessions(input, signal),
    placeholderData: keepPreviousData,
  });

/** useActiveSessions reads one page of sessions, refetched every refetchInterval ms when given. */
export function useActiveSessions(input: ActiveSessionsInput, refetchInterval: number | false) {
  return useQuery({ ...activeSessionsQuery(input), refetchInterval });
}
