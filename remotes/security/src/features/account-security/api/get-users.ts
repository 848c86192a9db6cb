import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ListUsersRequestJson, ListUsersResponseJson, ManagedUserJson } from '@paygate/gen/auth/v1/users_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The filters of the user list (server-side paging). */
export const usersInput = z.object({
  page: z.number().int().min(1),
  take: z.number().int().min(1).max(1000),
  search: z.string().trim().optional(),
  merchantId: z.number().int().positive().optional(),
  roleId: z.number().int().positive().optional(),
}) satisfies z.ZodType<ListUsersRequestJson>;

export type UsersInput = z.infer<typeof usersInput>;

/** ManagedUser is a user as the Users tab shows it, every field present. */
export type ManagedUser = Required<ManagedUserJson>;

/** UserPage is one page of users with its paging figures. */
export interface UserPage {
  users: ManagedUser[];
  totalCount: number;
  currentPage: number;
  totalPages: number;
}

/** toManagedUser fills the fields proto3 JSON leaves out (empty lists, false). */
export function toManagedUser(u: ManagedUserJson): ManagedUser {
  return {
    id: u.id ?? '',
    username: u.username ?? '',
    merchantIds: u.merchantIds ?? [],
    roleIds: u.roleIds ?? [],
    roles: u.roles ?? [],
    isPaygateAdmin: u.isPaygateAdmin ?? false,
    isMerchantAdmin: u.isMerchantAdmin ?? false,
    isIpRestricted: u.isIpRestricted ?? false,
    isDisabled: u.isDisabled ?? false,
    isTemporaryPassword: u.isTemporaryPassword ?? false,
    hasPasskey: u.hasPasskey ?? false,
    hasSecondFactor: u.hasSecondFactor ?? false,
  };
}

/** fetchUsers reads one page of users (GET {gatewayUrl}/api/v1/user/users?page&take&search&merchantId&roleId). */
export async function fetchUsers(input: UsersInput, signal?: AbortSignal): Promise<UserPage> {
  const { page, take, search, merchantId, roleId } = usersInput.parse(input);
  const res = await api.get<ListUsersResponseJson | undefined>('gateway', '/api/v1/user/users', {
    query: { page, take, search: search || undefined, merchantId, roleId },
    signal,
  });
  return {
    users: (res?.users ?? []).map(toManagedUser),
    totalCount: Number(res?.totalCount ?? 0),
    currentPage: res?.currentPage ?? page,
    totalPages: res?.totalPages ?? 0,
  };
}

/** The key prefix of every user list. */
export const USERS_KEY = ['security', 'users'] as const;

/** usersQuery is the query of one page of users. */
export const usersQuery = (input: UsersInput) =>
  queryOptions({
    queryKey: [...USERS_KEY, input],
    queryFn: ({ signal }) => fetchUsers(input, signal),
    placeholderData: keepPreviousData,
  });

/** useUsers reads one page of users. */
export function useUsers(input: UsersInput, enabled = true) {
  return useQuery({ ...usersQuery(input), enabled });
}
