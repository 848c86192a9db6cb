import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ListRolesResponseJson, RoleJson } from '@paygate/gen/auth/v1/users_pb';
import { api } from '@paygate/sdk';

/** RoleOption is a role the console can assign. */
export type RoleOption = Required<RoleJson>;

/** fetchRoles reads the assignable roles (GET {gatewayUrl}/api/v1/user/roles). */
export async function fetchRoles(signal?: AbortSignal): Promise<RoleOption[]> {
  const res = await api.get<ListRolesResponseJson | undefined>('gateway', '/api/v1/user/roles', { signal });
  return (res?.roles ?? []).map((r) => ({ id: r.id ?? 0, name: r.name ?? '' }));
}

/** rolesQuery is the query of the assignable roles; they rarely change. */
export const rolesQuery = () =>
  queryOptions({
    queryKey: ['security', 'roles'],
    queryFn: ({ signal }) => fetchRoles(signal),
    staleTime: 5 * 60_000,
  });

/** useRoles reads the assignable roles. */
export function useRoles(enabled = true) {
  return useQuery({ ...rolesQuery(), enabled });
}
