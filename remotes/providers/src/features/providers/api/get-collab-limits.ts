import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCollabLimits, type CollabLimits, type CollabLimitsWire } from './types';

/** The input of a limits read: the collab. */
export const collabLimitsInput = z.object({ collabId: z.number().int().positive() });

export type CollabLimitsInput = z.infer<typeof collabLimitsInput>;

/** fetchCollabLimits reads a collab's limits (GET {gatewayUrl}/api/v1/merchants/collab/{id}/limits). */
export async function fetchCollabLimits(input: CollabLimitsInput, signal?: AbortSignal): Promise<CollabLimits> {
  const { collabId } = collabLimitsInput.parse(input);
  return toCollabLimits(await api.get<CollabLimitsWire>('gateway', `/api/v1/merchants/collab/${collabId}/limits`, { signal }));
}

/** collabLimitsQuery is the query of one collab's limits. */
export const collabLimitsQuery = (input: CollabLimitsInput) =>
  queryOptions({
    queryKey: ['collab-limits', input.collabId],
    queryFn: ({ signal }) => fetchCollabLimits(input, signal),
  });

/** useCollabLimits reads one collab's limits. */
export function useCollabLimits(input: CollabLimitsInput) {
  return useQuery(collabLimitsQuery(input));
}
