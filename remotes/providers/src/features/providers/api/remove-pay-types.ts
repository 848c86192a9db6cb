import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCollab, type Collab, type CollabWire } from './types';

/** The input of a removal: the collab and the pay type ids to take off it. */
export const removePayTypesInput = z.object({
  collabId: z.number().int().positive(),
  payTypeIds: z.array(z.number().int().positive()).min(1),
});

export type RemovePayTypesInput = z.infer<typeof removePayTypesInput>;

/** removePayTypes removes pay types from a collab (DELETE {gatewayUrl}/api/v1/{collabId}/pay-types, ids in the body). */
export async function removePayTypes(input: RemovePayTypesInput): Promise<Collab> {
  const { collabId, payTypeIds } = removePayTypesInput.parse(input);
  return toCollab(await api.request<CollabWire>('gateway', `/api/v1/${collabId}/pay-types`, { method: 'DELETE', body: payTypeIds }));
}

/** useRemovePayTypes is the mutation of removePayTypes; it refreshes the collab's settings, its limits and the list. */
export function useRemovePayTypes() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: removePayTypes,
    onSettled: (_data, _err, input) =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['collab-settings', input.collabId] }),
        client.invalidateQueries({ queryKey: ['collab-limits', input.collabId] }),
        client.invalidateQueries({ queryKey: ['merchant-collabs'] }),
      ]),
  });
}
