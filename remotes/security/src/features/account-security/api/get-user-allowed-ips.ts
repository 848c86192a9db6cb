import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AllowedIpJson, ListUserAllowedIpsRequestJson, ListUserAllowedIpsResponseJson } from '@paygate/gen/auth/v1/allowed_ips_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The input of the list: the user whose allowed IP ranges are read. */
export const userAllowedIpsInput = z.object({
  id: z.string().trim().min(1),
}) satisfies z.ZodType<ListUserAllowedIpsRequestJson>;

export type UserAllowedIpsInput = z.infer<typeof userAllowedIpsInput>;

/** The list answer is the bare array of ranges (the response body is allowedIps). */
type AllowedIpsWire = NonNullable<ListUserAllowedIpsResponseJson['allowedIps']> | ListUserAllowedIpsResponseJson;

/** fetchUserAllowedIps reads a user's allowed IP ranges (GET {gatewayUrl}/api/v1/user/users/{userId}/ips). */
export async function fetchUserAllowedIps(input: UserAllowedIpsInput, signal?: AbortSignal): Promise<AllowedIpJson[]> {
  const { id } = userAllowedIpsInput.parse(input);
  const res = await api.get<AllowedIpsWire | undefined>('gateway', `/api/v1/user/users/${encodeURIComponent(id)}/ips`, { signal });
  return Array.isArray(res) ? res : (res?.allowedIps ?? []);
}

/** The key prefix of every allowed IP list. */
export const ALLOWED_IPS_KEY = ['security', 'allowed-ips'] as const;

/** userAllowedIpsQuery is the query of one user's ranges. */
export const userAllowedIpsQuery = (userId: string) =>
  queryOptions({
    queryKey: [...ALLOWED_IPS_KEY, userId],
    queryFn: ({ signal }) => fetchUserAllowedIps({ id: userId }, signal),
  });

/** useUserAllowedIps reads the ranges of userId, or nothing while it is null. */
export function useUserAllowedIps(userId: string | null) {
  return useQuery({ ...userAllowedIpsQuery(userId ?? ''), enabled: userId !== null });
}
