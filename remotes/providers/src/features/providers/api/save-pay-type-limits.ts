import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { amountsInput } from './amount-schema';
import { toCollabLimits, type CollabLimits, type CollabLimitsWire } from './types';

/** The input of a pay type limits change: the collab pay type and only the amounts that changed. */
export const savePayTypeLimitsInput = amountsInput.extend({ collabPayTypeId: z.number().int().positive() });

export type SavePayTypeLimitsInput = z.infer<typeof savePayTypeLimitsInput>;

/** savePayTypeLimits changes a collab pay type's limits (POST {gatewayUrl}/api/v1/merchants/collabs/pay-type/limits). */
export async function savePayTypeLimits(input: SavePayTypeLimitsInput): Promise<CollabLimits> {
  const body = savePayTypeLimitsInput.parse(input);
  return toCollabLimits(await api.post<CollabLimitsWire>('gateway', '/api/v1/merchants/collabs/pay-type/limits', body));
}

/** useSavePayTypeLimits is the mutation of savePayTypeLimits. */
export function useSavePayTypeLimits() {
  return useMutation({ mutationFn: savePayTypeLimits });
}
