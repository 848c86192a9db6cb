import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AuthSettingsJson, GetAuthSettingsResponseJson } from '@paygate/gen/auth/v1/auth_settings_pb';
import { api } from '@paygate/sdk';

/** AUTH_SETTINGS_KEY is the query key of the auth settings. */
export const AUTH_SETTINGS_KEY = ['auth', 'settings'] as const;

/** AuthSettings are the sign-in and session policy, every field present. */
export type AuthSettings = Required<AuthSettingsJson>;

/** fetchAuthSettings reads the settings in force (GET {authUrl}/api/v1/auth-settings). */
export async function fetchAuthSettings(signal?: AbortSignal): Promise<AuthSettings> {
  const res = await api.get<GetAuthSettingsResponseJson>('auth', '/api/v1/auth-settings', { signal });
  const s = res?.settings ?? {};
  return {
    requireSecondFactor: s.requireSecondFactor ?? 'REQUIRE_SECOND_FACTOR_OFF',
    sessionIdleTimeoutSeconds: s.sessionIdleTimeoutSeconds ?? 0,
    sessionMaxLifetimeSeconds: s.sessionMaxLifetimeSeconds ?? 0,
  };
}

/** useAuthSettings reads the settings in force. */
export function useAuthSettings() {
  return useQuery(queryOptions({ queryKey: AUTH_SETTINGS_KEY, queryFn: ({ signal }) => fetchAuthSettings(signal) }));
}
