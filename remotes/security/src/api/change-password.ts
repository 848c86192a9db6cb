import { useMutation } from '@tanstack/react-query';
import type { ChangeOwnPasswordRequestJson, ChangeOwnPasswordResponseJson } from '@paygate/gen/auth/v1/auth_pb';
import { api, auth, session, tokensFrom } from '@paygate/sdk';
import { z } from 'zod';

/**
 * The input of a password change: the new password (spec 02 §7) and the
 * current one, which the server asks for (docs/contracts-security.md).
 */
export const changePasswordInput = z.object({
  currentPassword: z.string().min(1, 'Current password is required.'),
  password: z.string().min(1, 'Password is required.'),
}) satisfies z.ZodType<ChangeOwnPasswordRequestJson>;

export type ChangePasswordInput = z.infer<typeof changePasswordInput>;

/**
 * changePassword replaces the caller's own password
 * (POST {authUrl}/api/v1/user/change-password), stores the token pair the
 * server answers with and refetches the user. A failed refetch is not the
 * password change's failure: the new token already names the user.
 */
export async function changePassword(input: ChangePasswordInput): Promise<void> {
  const body = changePasswordInput.parse(input);
  const res = await api.post<ChangeOwnPasswordResponseJson>('auth', '/api/v1/user/change-password', body);
  session.signIn(tokensFrom(res));
  await auth.fetchUser().catch(() => undefined);
}

/** useChangePassword is the mutation of changePassword. */
export function useChangePassword() {
  return useMutation({ mutationFn: changePassword });
}
