import { useMutation } from '@tanstack/react-query';
import type { CreateCallbackRequestJson } from '@paygate/gen/callbacks/v1/callbacks_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCallbackUrl, type CallbackUrl, type CallbackWire } from './types';

/** The "Add Callback URL" payload (spec 02 §5: max attempts 1 to 12). */
export const createCallbackInput = z.object({
  collabId: z.number().int().positive(),
  callbackUrl: z.string().trim().min(1),
  isEnabled: z.boolean(),
  maxAttempts: z.number().int().min(1).max(12),
  addSignature: z.boolean(),
  /** null: every type. */
  transactionTypeId: z.union([z.literal(1), z.literal(2), z.null()]),
});

export type CreateCallbackInput = z.infer<typeof createCallbackInput>;

/** createCallback adds a callback URL to a collab (POST {gatewayUrl}/api/v1/callbacks); the answer is the stored URL. */
export async function createCallback(input: CreateCallbackInput): Promise<CallbackUrl> {
  const i = createCallbackInput.parse(input);
  const body: CreateCallbackRequestJson = {
    collabId: i.collabId,
    callbackUrl: i.callbackUrl,
    isEnabled: i.isEnabled,
    maxAttempts: i.maxAttempts,
    addSignature: i.addSignature,
    // Left out for every type: the field is optional and absent means all.
    ...(i.transactionTypeId === null ? {} : { transactionTypeId: i.transactionTypeId }),
  };
  return toCallbackUrl(await api.post<CallbackWire>('gateway', '/api/v1/callbacks', body));
}

/** useCreateCallback is the mutation of createCallback. */
export function useCreateCallback() {
  return useMutation({ mutationFn: createCallback });
}
