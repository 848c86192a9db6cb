import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AddUserRequestJson, AddUserResponseJson } from '@paygate/gen/auth/v1/users_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { USERS_KEY } from './get-users';

/** The input of a new user (spec 02 §3, §5). */
export const addUserInput = z.object({
  username: z.string().trim().min(1, 'Username is required.'),
  password: z.string().min(1, 'Password is required.'),
  roleId: z.number({ error: 'Role is required.' }).int().positive('Role is required.'),
  merchantIds: z.array(z.number().int()).min(1, 'Select at least one merchant.'),
  hasStrictAccessRules: z.boolean(),
  isTemporaryPassword: z.boolean(),
}) satisfies z.ZodType<AddUserRequestJson>;

export type AddUserInput = z.infer<typeof addUserInput>;

/** addUser creates a user (POST {gatewayUrl}/api/v1/user/add). */
export async function addUser(input: AddUserInput): Promise<AddUserResponseJson | undefined> {
  const body = addUserInput.parse(input);
  return api.post<AddUserResponseJson | undefined>('gateway', '/api/v1/user/add', body);
}

/** useAddUser is the mutation of addUser; the user list reloads afterwards. */
export function useAddUser() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: addUser,
    onSuccess: () => client.invalidateQueries({ queryKey: USERS_KEY }),
  });
}
