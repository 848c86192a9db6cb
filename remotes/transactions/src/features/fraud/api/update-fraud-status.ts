import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { FraudJson, UpdateFraudStatusRequestJson } from '@paygate/gen/gateway/v1/frauds_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { FRAUDS_KEY } from './get-frauds';
import { toFraud, type Fraud } from './types';

/** The input of a review (spec 02 §4 Fraud reviewStatus): status 0, 1 or 2, the notes, and whether to stop callbacks. */
export const updateFraudStatusInput = z.object({
  id: z.string().regex(/^\d+$/),
  status: z.number().int().min(0).max(2),
  notes: z.string().max(2000),
  isCallbacksSendingCanceled: z.boolean(),
});

export type UpdateFraudStatusInput = z.infer<typeof updateFraudStatusInput>;

/** updateFraudStatus saves a review (POST {gatewayUrl}/api/v1/frauds/{id}/status/{status} with the notes). */
export async function updateFraudStatus(input: UpdateFraudStatusInput): Promise<Fraud> {
  const { id, status, notes, isCallbacksSendingCanceled } = updateFraudStatusInput.parse(input);
  const body: Omit<UpdateFraudStatusRequestJson, 'id' | 'status'> = { notes, isCallbacksSendingCanceled };
  return toFraud(await api.post<FraudJson>('gateway', `/api/v1/frauds/${id}/status/${status}`, body));
}

/** useUpdateFraudStatus is the mutation of updateFraudStatus; the lists reload after a save. */
export function useUpdateFraudStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateFraudStatus,
    onSuccess: () => client.invalidateQueries({ queryKey: FRAUDS_KEY }),
  });
}
