import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UpdateUserRequestJson, UpdateUserResponseJson } from '@paygate/gen/auth/v1/users_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { USERS_KEY } from './get-users';

/** The input of a user update: the id and only the changed fields (spec 02 §5). */
export const updateUserInput = z.object({
  userId: z.string().trim().min(1),
  username: z.string().trim().min(1, 'Username is required.').optional(),
  merchantIds: z.array(z.number().int()).min(1).optional(),
  roleIds: z.array(z.number().int().positive()).min(1).max(1).optional(),
  isIpRestricted: z.boolean().optional(),
  isDisabled: z.boolean().optional(),
}) satisfies z.ZodType<UpdateUserRequestJson>;

export type UpdateUserInput = z.infer<typeof updateUserInput>;

/** updateUser changes a user (PUT {gatewayUrl}/api/v1/user), sending only the fields present in input. */
export async function updateUser(input: UpdateUserInput): Promise<UpdateUserResponseJson | undefined> {
  const body = updateUserInput.parse(input);
  return api.request<UpdateUserResponseJson | undefined>('gateway', '/api/v1/user', { method: 'PUT', body });
}

/** useUpdateUser is the mutation of updateUser; the user list reloads afterwards. */
export function useUpdateUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateUser,
    onSuccess: () => client.invalidateQueries({ queryKey: USERS_KEY }),
  });
}
