import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { amountsInput } from './amount-schema';
import { toCollabLimits, type CollabLimits, type CollabLimitsWire } from './types';

/** The input of a collab limits change: the collab and only the amounts that changed. */
export const saveCollabLimitsInput = amountsInput.extend({ collabId: z.number().int().positive() });

export type SaveCollabLimitsInput = z.infer<typeof saveCollabLimitsInput>;

/** saveCollabLimits changes a collab's limits (POST {gatewayUrl}/api/v1/merchant/collabs/limits). */
export async function saveCollabLimits(input: SaveCollabLimitsInput): Promise<CollabLimits> {
  const body = saveCollabLimitsInput.parse(input);
  return toCollabLimits(await api.post<CollabLimitsWire>('gateway', '/api/v1/merchant/collabs/limits', body));
}

/** useSaveCollabLimits is the mutation of saveCollabLimits (the dialog refreshes once all its saves ran). */
export function useSaveCollabLimits() {
  return useMutation({ mutationFn: saveCollabLimits });
}
