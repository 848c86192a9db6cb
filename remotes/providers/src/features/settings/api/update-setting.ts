import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { fromServer, type JsonValue } from '../utils/json-value';
import { SETTING_KEYS_KEY } from './get-setting-keys';
import { settingKeyInput, settingQueryKey } from './get-setting';

const jsonValue: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

/** The input of a settings save: the key and its whole new value. */
export const updateSettingInput = z.object({ key: settingKeyInput, value: jsonValue });

export type UpdateSettingInput = z.infer<typeof updateSettingInput>;

/**
 * updateSetting replaces a setting's value (POST {gatewayUrl}/api/v1/settings/{key}
 * with the JSON value as the body; Settings Access and the Admin role) and
 * returns the value as stored.
 */
export async function updateSetting(input: UpdateSettingInput): Promise<JsonValue> {
  const { key, value } = updateSettingInput.parse(input);
  const body = await api.post<unknown>('gateway', `/api/v1/settings/${encodeURIComponent(key)}`, value);
  return body === undefined ? value : fromServer(body);
}

/** useUpdateSetting is the mutation of updateSetting; the stored value becomes the loaded one, and the list is read again. */
export function useUpdateSetting() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateSetting,
    onSuccess: (value, input) => {
      client.setQueryData(settingQueryKey(input.key), value);
      void client.invalidateQueries({ queryKey: SETTING_KEYS_KEY });
    },
  });
}
