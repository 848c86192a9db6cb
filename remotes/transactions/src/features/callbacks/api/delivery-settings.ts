import { useMutation } from '@tanstack/react-query';
import type { UpdateCallbackRequestJson } from '@paygate/gen/callbacks/v1/callbacks_pb';
import type { SetCallbackHeadersRequestJson } from '@paygate/gen/callbacks/v1/endpoints_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCallbackUrl, type CallbackHeader, type CallbackUrl, type CallbackWire } from './types';

/** The final statuses a callback URL may be limited to (docs/contracts-callbacks.md). */
export const FINAL_STATUSES = [4, -1, -2, -3, -4, -5, -6] as const;

/** The limits of a URL's custom headers, as the callbacks service keeps them. */
export const MAX_HEADERS = 10;
export const MAX_HEADER_NAME = 64;
export const MAX_HEADER_VALUE = 1024;

const header = z.object({ name: z.string(), value: z.string(), secret: z.boolean() });

export const deliverySettingsInput = z.object({
  id: z.string().regex(/^\d+$/),
  /** The statuses it receives; empty for every final status. */
  finalStatuses: z.array(z.number().int()),
  headers: z.array(header).max(MAX_HEADERS),
  /** Which of the two changed: only those calls are made. */
  statusesChanged: z.boolean(),
  headersChanged: z.boolean(),
});

export type DeliverySettingsInput = z.infer<typeof deliverySettingsInput>;

/**
 * saveDeliverySettings changes a callback URL's final-status filter
 * (POST {gatewayUrl}/api/v1/callbacks/{id}, `[0]` for every status) and its
 * custom headers (PUT {gatewayUrl}/api/v1/callbacks/{id}/headers, the whole
 * set; a secret header sent without a value keeps its stored value). It
 * answers the URL as stored after the last call made.
 */
export async function saveDeliverySettings(input: DeliverySettingsInput): Promise<CallbackUrl | null> {
  const i = deliverySettingsInput.parse(input);
  let saved: CallbackUrl | null = null;
  if (i.statusesChanged) {
    const body: UpdateCallbackRequestJson = { id: i.id, finalStatuses: i.finalStatuses.length === 0 ? [0] : i.finalStatuses };
    saved = toCallbackUrl(await api.post<CallbackWire>('gateway', `/api/v1/callbacks/${i.id}`, body));
  }
  if (i.headersChanged) {
    const body: SetCallbackHeadersRequestJson = {
      id: i.id,
      headers: i.headers.map((h: CallbackHeader) => ({ name: h.name.trim(), value: h.value.trim(), secret: h.secret })),
    };
    saved = toCallbackUrl(await api.request<CallbackWire>('gateway', `/api/v1/callbacks/${i.id}/headers`, { method: 'PUT', body }));
  }
  return saved;
}

/** useSaveDeliverySettings is the mutation of saveDeliverySettings. */
export function useSaveDeliverySettings() {
  return useMutation({ mutationFn: saveDeliverySettings });
}
