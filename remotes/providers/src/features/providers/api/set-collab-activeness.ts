import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SetCollabActivenessResponseJson } from '@paygate/gen/gateway/v1/collabs_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The input of an activeness change: the collab and the new state. */
export const collabActivenessInput = z.object({
  collabId: z.number().int().positive(),
  isEnabled: z.boolean(),
});

export type CollabActivenessInput = z.infer<typeof collabActivenessInput>;

/**
 * setCollabActiveness enables or disables a collab
 * (POST {gatewayUrl}/api/v1/collabs/{id}/activeness?isEnabled=…, no body).
 */
export async function setCollabActiveness(input: CollabActivenessInput): Promise<void> {
  const { collabId, isEnabled } = collabActivenessInput.parse(input);
  await api.post<SetCollabActivenessResponseJson>('gateway', `/api/v1/collabs/${collabId}/activeness`, undefined, { query: { isEnabled } });
}

/** useSetCollabActiveness is the mutation of setCollabActiveness; it refreshes the collab list. */
export function useSetCollabActiveness() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: setCollabActiveness,
    onSettled: () => client.invalidateQueries({ queryKey: ['merchant-collabs'] }),
  });
}
