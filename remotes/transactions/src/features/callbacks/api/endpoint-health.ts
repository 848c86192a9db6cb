import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import type { EnableCallbackResponseJson, ListEndpointHealthResponseJson } from '@paygate/gen/callbacks/v1/endpoints_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCallbackUrl, type CallbackUrl, type CallbackWire } from './types';

/** The states of a callback URL's circuit breaker (docs/contracts-callbacks.md, "Endpoint health"). */
export type BreakerState = 'closed' | 'open' | 'halfOpen' | 'disabled';

/** EndpointHealth is one callback URL's health over the last 24 hours. */
export interface EndpointHealth {
  callbackId: string;
  callbackUrl: string;
  isEnabled: boolean;
  attempts: number;
  successes: number;
  /** 0 to 1; null without attempts. */
  successRate: number | null;
  /** null when no duration was measured. */
  p95LatencyMs: number | null;
  breakerState: BreakerState;
  consecutiveFailures: number;
  retryUtc: string | null;
  disabledReason: string | null;
  disabledUtc: string | null;
}

const STATES: readonly BreakerState[] = ['closed', 'open', 'halfOpen', 'disabled'];

/** fetchEndpointHealth reads a merchant's callback URLs' health (GET {gatewayUrl}/api/v1/merchants/{id}/callbacks/health). */
export async function fetchEndpointHealth(merchantId: number, signal?: AbortSignal): Promise<EndpointHealth[]> {
  const id = z.number().int().positive().parse(merchantId);
  const body = await api.get<ListEndpointHealthResponseJson | undefined>('gateway', `/api/v1/merchants/${id}/callbacks/health`, { signal });
  return (body?.endpoints ?? []).map((e) => {
    const state = STATES.find((s) => s === e.breakerState) ?? 'closed';
    return {
      callbackId: String(e.callbackId ?? ''),
      callbackUrl: e.callbackUrl ?? '',
      isEnabled: e.isEnabled ?? false,
      attempts: Number(e.attempts ?? 0),
      successes: Number(e.successes ?? 0),
      successRate: typeof e.successRate === 'number' ? e.successRate : null,
      p95LatencyMs: e.p95LatencyMs ?? null,
      breakerState: state,
      consecutiveFailures: e.consecutiveFailures ?? 0,
      retryUtc: e.retryUtc ?? null,
      disabledReason: e.disabledReason ?? null,
      disabledUtc: e.disabledUtc ?? null,
    };
  });
}

/** endpointHealthQuery's key starts with 'callbacks' so that a change to the URLs refreshes it too. */
export const endpointHealthQuery = (merchantId: number) =>
  queryOptions({
    queryKey: ['callbacks', 'health', merchantId],
    queryFn: ({ signal }) => fetchEndpointHealth(merchantId, signal),
  });

/** useEndpointHealth reads the health; nothing is read while merchantId is null. */
export function useEndpointHealth(merchantId: number | null) {
  return useQuery({ ...endpointHealthQuery(merchantId ?? 1), enabled: merchantId !== null });
}

export const enableCallbackInput = z.object({ id: z.string().regex(/^\d+$/), recoverSinceDisabled: z.boolean() });
export type EnableCallbackInput = z.infer<typeof enableCallbackInput>;

/** enableCallback enables a callback URL again (POST {gatewayUrl}/api/v1/callbacks/{id}/enable). */
export async function enableCallback(input: EnableCallbackInput): Promise<{ callback: CallbackUrl; retryRunId: string | null }> {
  const i = enableCallbackInput.parse(input);
  const body = await api.post<EnableCallbackResponseJson>('gateway', `/api/v1/callbacks/${i.id}/enable`, { recoverSinceDisabled: i.recoverSinceDisabled });
  return { callback: toCallbackUrl((body.callback ?? {}) as CallbackWire), retryRunId: body.retryRunId != null ? String(body.retryRunId) : null };
}

/** useEnableCallback is the mutation of enableCallback. */
export function useEnableCallback() {
  return useMutation({ mutationFn: enableCallback });
}
