import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DeleteFeeRequestJson } from '@paygate/gen/gateway/v1/fees_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { FEES_KEY } from './get-fees';

/** The input of a delete: the fee's id. */
export const deleteFeeInput = z.object({
  id: z.string().regex(/^\d+$/),
}) satisfies z.ZodType<DeleteFeeRequestJson>;

export type DeleteFeeInput = z.infer<typeof deleteFeeInput>;

/** deleteFee removes a fee (DELETE {gatewayUrl}/api/v1/fees/{id}). */
export async function deleteFee(input: DeleteFeeInput): Promise<void> {
  const { id } = deleteFeeInput.parse(input);
  await api.request<unknown>('gateway', `/api/v1/fees/${id}`, { method: 'DELETE' });
}

/** useDeleteFee is the mutation of deleteFee; every fee read reloads afterwards. */
export function useDeleteFee() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteFee,
    onSuccess: () => client.invalidateQueries({ queryKey: FEES_KEY }),
  });
}
