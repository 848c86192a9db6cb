import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toCollabSettings, type CollabSettings, type CollabSettingsWire } from './types';

/**
 * The input of a settings save: the collab, the settings that changed (every
 * value a string, as the server keeps them) and the pay types whose channel
 * switches changed. Keys not sent stay as they are.
 */
export const saveCollabSettingsInput = z.object({
  collabId: z.number().int().positive(),
  settings: z.record(z.string(), z.string()),
  payTypeSettings: z
    .array(
      z.object({
        payTypeId: z.number().int().positive(),
        IsCashInEnabled: z.boolean(),
        IsCashOutEnabled: z.boolean(),
      }),
    )
    .optional(),
});

export type SaveCollabSettingsInput = z.infer<typeof saveCollabSettingsInput>;

/** saveCollabSettings writes a collab's settings (POST {gatewayUrl}/api/v1/collabs/settings). */
export async function saveCollabSettings(input: SaveCollabSettingsInput): Promise<CollabSettings> {
  const body = saveCollabSettingsInput.parse(input);
  return toCollabSettings(await api.post<CollabSettingsWire>('gateway', '/api/v1/collabs/settings', body));
}

/** useSaveCollabSettings is the mutation of saveCollabSettings; it refreshes the settings and the collab list. */
export function useSaveCollabSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: saveCollabSettings,
    onSettled: (_data, _err, input) =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['collab-settings', input.collabId] }),
        client.invalidateQueries({ queryKey: ['merchant-collabs'] }),
      ]),
  });
}
