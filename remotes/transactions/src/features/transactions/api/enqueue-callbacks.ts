import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The input of the callback queue: a transaction id. */
export const enqueueCallbacksInput = z.object({ id: z.string().regex(/^\d+$/) });

export type EnqueueCallbacksInput = z.infer<typeof enqueueCallbacksInput>;

/**
 * enqueueCallbacks sends a final transaction's outcome to the merchant again
 * (POST {gatewayUrl}/api/v1/transactions/{id}/callbacks/enqueue, which the
 * gateway host forwards to the callbacks service); the answer is 202.
 */
export async function enqueueCallbacks(input: EnqueueCallbacksInput): Promise<void> {
  const { id } = enqueueCallbacksInput.parse(input);
  await api.post<unknown>('gateway', `/api/v1/transactions/${id}/callbacks/enqueue`);
}

/** useEnqueueCallbacks is the mutation of enqueueCallbacks. */
export function useEnqueueCallbacks() {
  return useMutation({ mutationFn: enqueueCallbacks });
}
