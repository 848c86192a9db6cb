import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { fromServer, type JsonValue } from '../utils/json-value';

/** A setting's key, as listed. */
export const settingKeyInput = z.string().trim().min(1).max(100);

/** fetchSetting reads one setting's value (GET {gatewayUrl}/api/v1/settings/{key}): the JSON value itself, converted as spec 02 §5 says. */
export async function fetchSetting(key: string, signal?: AbortSignal): Promise<JsonValue> {
  const k = settingKeyInput.parse(key);
  const body = await api.get<unknown>('gateway', `/api/v1/settings/${encodeURIComponent(k)}`, { signal });
  return fromServer(body);
}

/** settingQueryKey is the query key of one setting's value. */
export const settingQueryKey = (key: string) => ['settings', 'value', key] as const;

/** settingQuery is the query of one setting's value. */
export const settingQuery = (key: string) =>
  queryOptions({
    queryKey: settingQueryKey(key),
    queryFn: ({ signal }) => fetchSetting(key, signal),
  });

/** useSetting reads the selected setting's value; nothing is read while no key is selected. */
export function useSetting(key: string | null) {
  return useQuery({ ...settingQuery(key ?? ''), enabled: key !== null && key !== '' });
}
