import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { toSettingKey, type SettingKey, type SettingKeyWire } from './types';

/** The key of the settings list query. */
export const SETTING_KEYS_KEY = ['settings', 'keys'] as const;

/** fetchSettingKeys reads every setting key with its description and schema (GET {gatewayUrl}/api/v1/settings/keys, Settings Access). */
export async function fetchSettingKeys(signal?: AbortSignal): Promise<SettingKey[]> {
  const body = await api.get<SettingKeyWire[] | undefined>('gateway', '/api/v1/settings/keys', { signal });
  return (Array.isArray(body) ? body : []).map(toSettingKey).filter((k) => k.key !== '');
}

/** settingKeysQuery is the query of the settings list. */
export const settingKeysQuery = () =>
  queryOptions({
    queryKey: SETTING_KEYS_KEY,
    queryFn: ({ signal }) => fetchSettingKeys(signal),
  });

/** useSettingKeys reads the settings list; the page loads it on open. */
export function useSettingKeys() {
  return useQuery(settingKeysQuery());
}
