import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCollab, type Collab, type CollabWire } from './types';

/** The input of a new collab (spec 01 §3 "New collab payload"); settings are strings as the server keeps them. */
export const initializeCollabInput = z.object({
  ProviderId: z.number().int().positive(),
  MerchantId: z.number().int().positive(),
  PayTypeIds: z.array(z.number().int().positive()),
  PayTypeSettings: z.array(
    z.object({
      PayTypeId: z.number().int().positive(),
      IsCashInEnabled: z.boolean(),
      IsCashOutEnabled: z.boolean(),
    }),
  ),
  CollabSettings: z.record(z.string(), z.string()),
});

export type InitializeCollabInput = z.infer<typeof initializeCollabInput>;

/** initializeCollab creates a collab (POST {gatewayUrl}/api/v1/collabs/initialize). */
export async function initializeCollab(input: InitializeCollabInput): Promise<Collab> {
  const body = initializeCollabInput.parse(input);
  return toCollab(await api.post<CollabWire>('gateway', '/api/v1/collabs/initialize', body));
}

/** useInitializeCollab is the mutation of initializeCollab; it refreshes the collab list. */
export function useInitializeCollab() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: initializeCollab,
    onSuccess: () => client.invalidateQueries({ queryKey: ['merchant-collabs'] }),
  });
}
