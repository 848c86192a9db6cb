import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCallbackUrl, type CallbackUrl, type CallbackWire } from './types';

/** The input of the list: one collab's callback URLs, or every callback URL of a merchant. */
export const callbacksInput = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('collab'), id: z.number().int().positive() }),
  z.object({ kind: z.literal('merchant'), id: z.number().int().positive() }),
]);

export type CallbacksInput = z.infer<typeof callbacksInput>;

/**
 * fetchCallbacks lists callback URLs (GET {gatewayUrl}/api/v1/collabs/{id}/callbacks
 * or /api/v1/merchants/{id}/callbacks); both answer a bare list.
 */
export async function fetchCallbacks(input: CallbacksInput, signal?: AbortSignal): Promise<CallbackUrl[]> {
  const { kind, id } = callbacksInput.parse(input);
  const path = kind === 'collab' ? `/api/v1/collabs/${id}/callbacks` : `/api/v1/merchants/${id}/callbacks`;
  const body = await api.get<CallbackWire[] | undefined>('gateway', path, { signal });
  return (Array.isArray(body) ? body : []).map(toCallbackUrl);
}

/** callbacksQuery is the query of one list; every key starts with 'callbacks' so a change refreshes them all. */
export const callbacksQuery = (input: CallbacksInput) =>
  queryOptions({
    queryKey: ['callbacks', input.kind, input.id],
    queryFn: ({ signal }) => fetchCallbacks(input, signal),
  });

/** useCallbacks reads a list; nothing is read while the input is null. */
export function useCallbacks(input: CallbacksInput | null) {
  return useQuery({ ...callbacksQuery(input ?? { kind: 'collab', id: 1 }), enabled: input !== null });
}
