import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { amount } from './amount-schema';
import { toCollab, type Collab, type CollabWire } from './types';

/** One pay type to add (spec 01 §3 "Add pay type payload"); the optional amounts are sent only when filled. */
export const newPayTypeInput = z.object({
  PayTypeId: z.number().int().positive(),
  IsCashInEnabled: z.boolean(),
  IsCashOutEnabled: z.boolean(),
  MinimalDepositAmount: amount.min(1).optional(),
  MaximalDepositAmount: amount.min(1).optional(),
  MinimalWithdrawalAmount: amount.min(1).optional(),
  MaximalWithdrawalAmount: amount.min(1).optional(),
});

/** The input of an add: the collab and its new pay types. */
export const addPayTypesInput = z.object({
  collabId: z.number().int().positive(),
  payTypes: z.array(newPayTypeInput).min(1),
});

export type NewPayType = z.infer<typeof newPayTypeInput>;
export type AddPayTypesInput = z.infer<typeof addPayTypesInput>;

/** addPayTypes adds pay types to a collab (PUT {gatewayUrl}/api/v1/{collabId}/pay-types, a bare JSON array). */
export async function addPayTypes(input: AddPayTypesInput): Promise<Collab> {
  const { collabId, payTypes } = addPayTypesInput.parse(input);
  return toCollab(await api.request<CollabWire>('gateway', `/api/v1/${collabId}/pay-types`, { method: 'PUT', body: payTypes }));
}

/** useAddPayTypes is the mutation of addPayTypes; it refreshes the collab's settings, its limits and the list. */
export function useAddPayTypes() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: addPayTypes,
    onSettled: (_data, _err, input) =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['collab-settings', input.collabId] }),
        client.invalidateQueries({ queryKey: ['collab-limits', input.collabId] }),
        client.invalidateQueries({ queryKey: ['merchant-collabs'] }),
      ]),
  });
}
