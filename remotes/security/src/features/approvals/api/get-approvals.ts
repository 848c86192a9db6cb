import { keepPreviousData, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import type { ApprovalRequestJson, ListApprovalRequestsRequestJson, ListApprovalRequestsResponseJson } from '@paygate/gen/auth/v1/approvals_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The statuses of a request (approvals.proto). */
export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired', 'failed'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/**
 * ApprovalRequest is a request as the console shows it, every field present;
 * ids stay strings (int64 in JSON), times RFC 3339 text ('' when unset).
 */
export type ApprovalRequest = Omit<Required<ApprovalRequestJson>, 'requestedAt' | 'expiresAt' | 'decidedAt'> & {
  requestedAt: string;
  expiresAt: string;
  decidedAt: string;
};

/** toApprovalRequest fills the fields proto3 JSON leaves out. */
export function toApprovalRequest(r: ApprovalRequestJson): ApprovalRequest {
  return {
    id: String(r.id ?? '0'),
    action: r.action ?? '',
    title: r.title ?? '',
    summary: r.summary ?? [],
    description: r.description ?? '',
    digest: r.digest ?? '',
    reason: r.reason ?? '',
    status: r.status ?? '',
    requestedBy: String(r.requestedBy ?? '0'),
    requestedByUsername: r.requestedByUsername ?? '',
    requestedAt: r.requestedAt ?? '',
    expiresAt: r.expiresAt ?? '',
    approverPermission: r.approverPermission ?? '',
    decidedBy: String(r.decidedBy ?? '0'),
    decidedByUsername: r.decidedByUsername ?? '',
    decidedAt: r.decidedAt ?? '',
    outcome: r.outcome ?? '',
    proofs: r.proofs ?? [],
    canDecide: r.canDecide ?? false,
  };
}

/** The filters of the list: a status ('' for all), an action ('' for all), only the caller's own. */
export const approvalsFilter = z.object({
  status: z.union([z.enum(APPROVAL_STATUSES), z.literal('')]),
  action: z.string(),
  mine: z.boolean(),
});

export type ApprovalsFilter = z.infer<typeof approvalsFilter>;

/** The requests of one page (the server's default). */
export const APPROVALS_PAGE_SIZE = 25;

/** The input of one page: the filters, the page size and the keyset cursor ('0' for the first page). */
export const approvalsPageInput = approvalsFilter.extend({
  pageSize: z.number().int().min(1).max(100),
  beforeId: z.string().regex(/^\d+$/),
}) satisfies z.ZodType<Omit<ListApprovalRequestsRequestJson, 'beforeId'> & { beforeId: string }>;

export type ApprovalsPageInput = z.infer<typeof approvalsPageInput>;

/** ApprovalsPage is one page of requests and the cursor of the next ('0' after the last). */
export interface ApprovalsPage {
  requests: ApprovalRequest[];
  nextBeforeId: string;
}

/**
 * fetchApprovalsPage reads one page of the requests the caller made or may
 * decide, newest first
 * (GET {authUrl}/api/v1/approvals?status&action&mine&pageSize&beforeId).
 */
export async function fetchApprovalsPage(input: ApprovalsPageInput, signal?: AbortSignal): Promise<ApprovalsPage> {
  const { status, action, mine, pageSize, beforeId } = approvalsPageInput.parse(input);
  const res = await api.get<ListApprovalRequestsResponseJson | undefined>('auth', '/api/v1/approvals', {
    query: {
      status: status || undefined,
      action: action || undefined,
      mine: mine || undefined,
      pageSize,
      beforeId: beforeId === '0' ? undefined : beforeId,
    },
    signal,
  });
  return { requests: (res?.requests ?? []).map(toApprovalRequest), nextBeforeId: String(res?.nextBeforeId ?? '0') };
}

/** ApprovalsList is the loaded pages as one list. */
export interface ApprovalsList {
  requests: ApprovalRequest[];
  /** The cursor of the page after the loaded ones ('0' when none follows). */
  nextBeforeId: string;
  /** How many pages the list holds. */
  pages: number;
}

/**
 * The key prefix of everything about approval requests: the lists here and
 * the shell's count of pending approvals (['approvals', 'pending-count']),
 * which a decision refreshes together.
 */
export const APPROVALS_KEY = ['approvals'] as const;

const listKey = (filter: ApprovalsFilter, pages: number) => [...APPROVALS_KEY, 'list', filter, pages] as const;

/**
 * fetchApprovals reads the first `pages` pages, each from the cursor the one
 * before answered, so a reload never leaves a gap when new requests arrive.
 * The first load of one more page ("Load more") starts from the cached list
 * of one page less and asks only for the new page; every reload after that
 * reads all the pages again.
 */
export async function fetchApprovals(client: QueryClient, filter: ApprovalsFilter, pages: number, signal?: AbortSignal): Promise<ApprovalsList> {
  const firstLoad = client.getQueryData(listKey(filter, pages)) === undefined;
  const shorter = firstLoad && pages > 1 ? client.getQueryData<ApprovalsList>(listKey(filter, pages - 1)) : undefined;
  const requests: ApprovalRequest[] = shorter ? [...shorter.requests] : [];
  let cursor = shorter ? shorter.nextBeforeId : '0';
  let loaded = shorter ? shorter.pages : 0;
  while (loaded < pages && (loaded === 0 || cursor !== '0')) {
    const page = await fetchApprovalsPage({ ...filter, pageSize: APPROVALS_PAGE_SIZE, beforeId: cursor }, signal);
    const seen = new Set(requests.map((r) => r.id));
    requests.push(...page.requests.filter((r) => !seen.has(r.id)));
    cursor = page.nextBeforeId;
    loaded += 1;
  }
  return { requests, nextBeforeId: cursor, pages: loaded };
}

/** How often the Approvals page reloads (docs/contracts-approvals.md). */
export const APPROVALS_REFRESH_MS = 5_000;

/**
 * useApprovals reads the first `pages` pages of the requests matching the
 * filter, reloaded every 5 s; the rows already shown stay while more load.
 */
export function useApprovals(filter: ApprovalsFilter, pages: number) {
  const client = useQueryClient();
  return useQuery({
    queryKey: listKey(filter, pages),
    queryFn: ({ signal }) => fetchApprovals(client, filter, pages, signal),
    placeholderData: keepPreviousData,
    refetchInterval: APPROVALS_REFRESH_MS,
  });
}
