import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCollabSettings, type CollabSettings, type CollabSettingsWire } from './types';

/** The input of a settings read: the collab. */
export const collabSettingsInput = z.object({ collabId: z.number().int().positive() });

export type CollabSettingsInput = z.infer<typeof collabSettingsInput>;

/** fetchCollabSettings reads a collab's settings (GET {gatewayUrl}/api/v1/collabs/{id}/settings). */
export async function fetchCollabSettings(input: CollabSettingsInput, signal?: AbortSignal): Promise<CollabSettings> {
  const { collabId } = collabSettingsInput.parse(input);
  return toCollabSettings(await api.get<CollabSettingsWire>('gateway', `/api/v1/collabs/${collabId}/settings`, { signal }));
}

/** collabSettingsQuery is the query of one collab's settings. */
export const collabSettingsQuery = (input: CollabSettingsInput) =>
  queryOptions({
    queryKey: ['collab-settings', input.collabId],
    queryFn: ({ signal }) => fetchCollabSettings(input, signal),
  });

/** useCollabSettings reads one collab's settings. */
export function useCollabSettings(input: CollabSettingsInput) {
  return useQuery(collabSettingsQuery(input));
}
