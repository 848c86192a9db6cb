import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The gateway's queues a transaction can be put on from the Edit dialog (spec 02 §4); the callback queue is enqueue-callbacks. */
export const QUEUES = { transaction: 'enqueue', polling: 'polling/enqueue' } as const;

/** The input of an enqueue: the transaction and the queue. */
export const enqueueInput = z.object({ id: z.string().regex(/^\d+$/), queue: z.enum(['transaction', 'polling']) });

export type EnqueueInput = z.infer<typeof enqueueInput>;

/**
 * enqueueTransaction puts a transaction on a queue
 * (POST {gatewayUrl}/api/v1/transactions/{id}/enqueue or …/polling/enqueue); the gateway answers 202.
 */
export async function enqueueTransaction(input: EnqueueInput): Promise<void> {
  const { id, queue } = enqueueInput.parse(input);
  await api.post<unknown>('gateway', `/api/v1/transactions/${id}/${QUEUES[queue]}`);
}

/** useEnqueueTransaction is the mutation of enqueueTransaction. */
export function useEnqueueTransaction() {
  return useMutation({ mutationFn: enqueueTransaction });
}
