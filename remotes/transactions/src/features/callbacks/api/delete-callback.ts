import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The input of a delete: the callback URL's id. */
export const deleteCallbackInput = z.object({ id: z.string().regex(/^\d+$/) });

export type DeleteCallbackInput = z.infer<typeof deleteCallbackInput>;

/** deleteCallback removes a callback URL (DELETE {gatewayUrl}/api/v1/callbacks/{id}). */
export async function deleteCallback(input: DeleteCallbackInput): Promise<void> {
  const { id } = deleteCallbackInput.parse(input);
  await api.request<unknown>('gateway', `/api/v1/callbacks/${id}`, { method: 'DELETE' });
}

/** useDeleteCallback is the mutation of deleteCallback. */
export function useDeleteCallback() {
  return useMutation({ mutationFn: deleteCallback });
}
