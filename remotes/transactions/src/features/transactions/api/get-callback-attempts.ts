import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CallbackAttemptJson, ListCallbackAttemptsResponseJson } from '@paygate/gen/callbacks/v1/callbacks_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** How many attempts the dialog reads at once (spec 02 §9: page 1, 100 per page, 10 shown). */
export const ATTEMPTS_TAKE = 100;

/** The input of the attempts read: a transaction id and the page. */
export const callbackAttemptsInput = z.object({
  id: z.string().regex(/^\d+$/),
  page: z.number().int().min(1),
  take: z.number().int().min(1).max(500),
});

export type CallbackAttemptsInput = z.infer<typeof callbackAttemptsInput>;

/** CallbackAttempt is one delivery attempt as the dialog shows it (spec 02 §3). */
export interface CallbackAttempt {
  id: string;
  createdUtc: string;
  callbackUrl: string;
  requestBody: string;
  /** The receiver's HTTP status, 0 when there was no answer. */
  responseCode: number;
  /** "Success", "Failed" (retryable) or "Retried". */
  callbackAttemptStatus: string;
  webhookId: string;
  attemptNumber: number;
  errorMessage: string;
}

/** CallbackAttemptList is one page of attempts. */
export interface CallbackAttemptList {
  callbackAttempts: CallbackAttempt[];
  totalCount: number;
  currentPage: number;
  totalPages: number;
}

/** toCallbackAttempt fills the defaults proto3 JSON leaves out. */
export function toCallbackAttempt(a: CallbackAttemptJson): CallbackAttempt {
  return {
    id: String(a.id ?? ''),
    createdUtc: a.createdUtc ?? '',
    callbackUrl: a.callbackUrl ?? '',
    requestBody: a.requestBody ?? '',
    responseCode: a.responseCode ?? 0,
    callbackAttemptStatus: a.callbackAttemptStatus ?? '',
    webhookId: a.webhookId ?? '',
    attemptNumber: a.attemptNumber ?? 0,
    errorMessage: a.errorMessage ?? '',
  };
}

/**
 * fetchCallbackAttempts reads a page of a transaction's callback attempts,
 * newest first (GET {gatewayUrl}/api/v1/transactions/{id}/callbacks/attempts?page&take).
 */
export async function fetchCallbackAttempts(input: CallbackAttemptsInput, signal?: AbortSignal): Promise<CallbackAttemptList> {
  const { id, page, take } = callbackAttemptsInput.parse(input);
  const body = await api.get<ListCallbackAttemptsResponseJson | undefined>('gateway', `/api/v1/transactions/${id}/callbacks/attempts`, {
    query: { page, take },
    signal,
  });
  const attempts = (body?.callbackAttempts ?? []).map(toCallbackAttempt);
  return {
    callbackAttempts: attempts,
    totalCount: Number(body?.totalCount ?? attempts.length),
    currentPage: body?.currentPage ?? page,
    totalPages: body?.totalPages ?? 0,
  };
}

/** callbackAttemptsQuery is the query of a transaction's attempts; its key starts with 'transactions'. */
export const callbackAttemptsQuery = (input: CallbackAttemptsInput) =>
  queryOptions({
    queryKey: ['transactions', 'callback-attempts', input.id, input.page, input.take],
    queryFn: ({ signal }) => fetchCallbackAttempts(input, signal),
  });

/** useCallbackAttempts reads the first 100 attempts of a transaction. */
export function useCallbackAttempts(id: string) {
  return useQuery(callbackAttemptsQuery({ id, page: 1, take: ATTEMPTS_TAKE }));
}
