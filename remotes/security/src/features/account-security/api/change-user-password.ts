import { useMutation } from '@tanstack/react-query';
import type { ChangeUserPasswordRequestJson } from '@paygate/gen/auth/v1/users_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The input of another user's password change (spec 02 §3, §5). */
export const changeUserPasswordInput = z.object({
  userId: z.string().trim().min(1),
  newPassword: z.string().min(1, 'Password is required.'),
  isTemporaryPassword: z.boolean(),
}) satisfies z.ZodType<ChangeUserPasswordRequestJson>;

export type ChangeUserPasswordInput = z.infer<typeof changeUserPasswordInput>;

/** changeUserPassword sets a user's password (POST {gatewayUrl}/api/v1/user/{id}/change-password). */
export async function changeUserPassword(input: ChangeUserPasswordInput): Promise<void> {
  const body = changeUserPasswordInput.parse(input);
  await api.post('gateway', `/api/v1/user/${encodeURIComponent(body.userId)}/change-password`, body);
}

/** useChangeUserPassword is the mutation of changeUserPassword. */
export function useChangeUserPassword() {
  return useMutation({ mutationFn: changeUserPassword });
}
