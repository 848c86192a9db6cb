import { useMutation } from '@tanstack/react-query';
import type { UpdateCallbackRequestJson } from '@paygate/gen/callbacks/v1/callbacks_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCallbackUrl, type CallbackUrl, type CallbackWire } from './types';

/** A row edit: the row's fields replace the stored ones. */
export const updateCallbackInput = z.object({
  id: z.string().regex(/^\d+$/),
  callbackUrl: z.string().trim().min(1),
  isEnabled: z.boolean(),
  maxAttempts: z.number().int().min(1).max(12),
  addSignature: z.boolean(),
  transactionTypeId: z.union([z.literal(1), z.literal(2), z.null()]),
});

export type UpdateCallbackInput = z.infer<typeof updateCallbackInput>;

/**
 * updateCallback changes a callback URL (POST {gatewayUrl}/api/v1/callbacks/{id}).
 * Every type is sent as 0: on an update an absent type keeps the stored one.
 */
export async function updateCallback(input: UpdateCallbackInput): Promise<CallbackUrl> {
  const i = updateCallbackInput.parse(input);
  const body: UpdateCallbackRequestJson = {
    id: i.id,
    callbackUrl: i.callbackUrl,
    isEnabled: i.isEnabled,
    maxAttempts: i.maxAttempts,
    addSignature: i.addSignature,
    transactionTypeId: i.transactionTypeId ?? 0,
  };
  return toCallbackUrl(await api.post<CallbackWire>('gateway', `/api/v1/callbacks/${i.id}`, body));
}

/** useUpdateCallback is the mutation of updateCallback. */
export function useUpdateCallback() {
  return useMutation({ mutationFn: updateCallback });
}
