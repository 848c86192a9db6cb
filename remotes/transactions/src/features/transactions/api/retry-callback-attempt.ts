import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The input of a retry: a failed attempt's id. */
export const retryCallbackAttemptInput = z.object({ id: z.string().regex(/^\d+$/) });

export type RetryCallbackAttemptInput = z.infer<typeof retryCallbackAttemptInput>;

/**
 * retryCallbackAttempt puts a failed attempt's delivery back on the retry
 * queue (POST {gatewayUrl}/api/v1/callbacks/attempts/{id}/retry, which the
 * gateway host forwards to the callbacks service); the answer is 202.
 */
export async function retryCallbackAttempt(input: RetryCallbackAttemptInput): Promise<void> {
  const { id } = retryCallbackAttemptInput.parse(input);
  await api.post<unknown>('gateway', `/api/v1/callbacks/attempts/${id}/retry`);
}

/** useRetryCallbackAttempt is the mutation of retryCallbackAttempt. */
export function useRetryCallbackAttempt() {
  return useMutation({ mutationFn: retryCallbackAttempt });
}
