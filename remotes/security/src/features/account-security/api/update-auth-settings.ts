import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UpdateAuthSettingsResponseJson } from '@paygate/gen/auth/v1/auth_settings_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { AUTH_SETTINGS_KEY, type AuthSettings } from './get-auth-settings';

/** The bounds of the session settings (docs/contracts-second-factor.md). */
export const IDLE_BOUNDS = { min: 300, max: 2_592_000 };
export const LIFETIME_BOUNDS = { min: 3_600, max: 7_776_000 };

/** The input of an update: every setting. */
export const authSettingsInput = z
  .object({
    requireSecondFactor: z.enum(['REQUIRE_SECOND_FACTOR_OFF', 'REQUIRE_SECOND_FACTOR_EVERYONE', 'REQUIRE_SECOND_FACTOR_ADMIN_WIDE']),
    sessionIdleTimeoutSeconds: z.number().int().min(IDLE_BOUNDS.min).max(IDLE_BOUNDS.max),
    sessionMaxLifetimeSeconds: z.number().int().min(LIFETIME_BOUNDS.min).max(LIFETIME_BOUNDS.max),
  })
  .refine((s) => s.sessionMaxLifetimeSeconds >= s.sessionIdleTimeoutSeconds, {
    message: 'The maximum lifetime must be at least the idle timeout.',
    path: ['sessionMaxLifetimeSeconds'],
  });

/** updateAuthSettings replaces the settings (PUT {authUrl}/api/v1/auth-settings). */
export async function updateAuthSettings(input: AuthSettings): Promise<void> {
  const settings = authSettingsInput.parse(input);
  await api.request<UpdateAuthSettingsResponseJson>('auth', '/api/v1/auth-settings', { method: 'PUT', body: { settings } });
}

/** useUpdateAuthSettings is the mutation of updateAuthSettings. */
export function useUpdateAuthSettings() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateAuthSettings,
    onSuccess: () => client.invalidateQueries({ queryKey: AUTH_SETTINGS_KEY }),
  });
}
