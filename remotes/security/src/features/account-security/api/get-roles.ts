import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListRolesResponseJson, RoleJson } from '@paygate/gen/auth/v1/users_pb';
import { api } from '@paygate/sdk';

/**
 * RoleOption is a role the console can assign, every field present: built-in
 * or custom, its permissions and scope flag, and how many of the users the
 * caller manages hold it (docs/access.md).
 */
export type RoleOption = Required<RoleJson>;

/** toRole fills the fields proto3 JSON leaves out (false, empty lists, 0). */
export function toRole(r: RoleJson): RoleOption {
  return {
    id: r.id ?? 0,
    name: r.name ?? '',
    builtIn: r.builtIn ?? false,
    permissions: r.permissions ?? [],
    globalScope: r.globalScope ?? false,
    userCount: r.userCount ?? 0,
  };
}

/** fetchRoles reads the roles the caller may give (GET {gatewayUrl}/api/v1/user/roles). */
export async function fetchRoles(signal?: AbortSignal): Promise<RoleOption[]> {
  const res = await api.get<ListRolesResponseJson | undefined>('gateway', '/api/v1/user/roles', { signal });
  return (res?.roles ?? []).map(toRole);
}

/** The key of the role list; role changes refresh it. */
export const ROLES_KEY = ['security', 'roles'] as const;

/** rolesQuery is the query of the roles the caller may give. */
export const rolesQuery = () =>
  queryOptions({
    queryKey: ROLES_KEY,
    queryFn: ({ signal }) => fetchRoles(signal),
    staleTime: 60_000,
  });

/** useRoles reads the roles the caller may give. */
export function useRoles(enabled = true) {
  return useQuery({ ...rolesQuery(), enabled });
}
