import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ResetUserSecondFactorRequestJson } from '@paygate/gen/auth/v1/second_factor_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { USERS_KEY } from './get-users';

/** The input of a reset: the user's id. */
export const resetSecondFactorInput = z.object({ userId: z.string().trim().min(1) }) satisfies z.ZodType<ResetUserSecondFactorRequestJson>;

/**
 * resetSecondFactor removes another user's second factor and ends their
 * sessions (POST {authUrl}/api/v1/user/{userId}/second-factor/reset; Edit User).
 */
export async function resetSecondFactor(userId: string): Promise<void> {
  const input = resetSecondFactorInput.parse({ userId });
  await api.post('auth', `/api/v1/user/${encodeURIComponent(input.userId)}/second-factor/reset`, {});
}

/** useResetSecondFactor is the mutation of resetSecondFactor; the user list is read again. */
export function useResetSecondFactor() {
  const client = useQueryClient();
  return useMutation({ mutationFn: resetSecondFactor, onSuccess: () => client.invalidateQueries({ queryKey: USERS_KEY }) });
}
