import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CreateRoleRequestJson, CreateRoleResponseJson, UpdateRoleResponseJson } from '@paygate/gen/auth/v1/roles_pb';
import { api, PERMISSIONS } from '@paygate/sdk';
import { z } from 'zod';
import { ROLES_KEY } from './get-roles';
import { USERS_KEY } from './get-users';

/** The bounds of a role's name (docs/access.md). */
export const ROLE_NAME_MIN = 2;
export const ROLE_NAME_MAX = 64;

/** roleInput is a role's name, permissions (any of the 30) and scope flag. */
export const roleInput = z.object({
  name: z
    .string()
    .trim()
    .min(ROLE_NAME_MIN, `Name must be ${ROLE_NAME_MIN} to ${ROLE_NAME_MAX} characters long.`)
    .max(ROLE_NAME_MAX, `Name must be ${ROLE_NAME_MIN} to ${ROLE_NAME_MAX} characters long.`),
  permissions: z.array(z.enum(PERMISSIONS)),
  globalScope: z.boolean(),
}) satisfies z.ZodType<CreateRoleRequestJson>;

export type RoleInput = z.infer<typeof roleInput>;

/** createRole makes a custom role (POST {gatewayUrl}/api/v1/roles). */
export async function createRole(input: RoleInput): Promise<CreateRoleResponseJson | undefined> {
  return api.request<CreateRoleResponseJson | undefined>('gateway', '/api/v1/roles', { method: 'POST', body: roleInput.parse(input) });
}

/** updateRole replaces a custom role's name, permissions and flag (PUT {gatewayUrl}/api/v1/roles/{id}). */
export async function updateRole({ id, ...input }: RoleInput & { id: number }): Promise<UpdateRoleResponseJson | undefined> {
  return api.request<UpdateRoleResponseJson | undefined>('gateway', `/api/v1/roles/${id}`, { method: 'PUT', body: roleInput.parse(input) });
}

/** deleteRole deletes a custom role no user holds (DELETE {gatewayUrl}/api/v1/roles/{id}). */
export async function deleteRole(id: number): Promise<void> {
  await api.request('gateway', `/api/v1/roles/${id}`, { method: 'DELETE' });
}

/** useRoleChanges are the mutations of the Roles tab; the roles and the users (their role names) reload afterwards. */
export function useRoleChanges() {
  const client = useQueryClient();
  const refresh = () => Promise.all([client.invalidateQueries({ queryKey: ROLES_KEY }), client.invalidateQueries({ queryKey: USERS_KEY })]);
  return {
    create: useMutation({ mutationFn: createRole, onSuccess: refresh }),
    update: useMutation({ mutationFn: updateRole, onSuccess: refresh }),
    remove: useMutation({ mutationFn: deleteRole, onSuccess: refresh }),
  };
}
