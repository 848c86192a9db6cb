import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AllowedIpJson, CreateAllowedIpRequestJson } from '@paygate/gen/auth/v1/allowed_ips_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { ALLOWED_IPS_KEY } from './get-user-allowed-ips';

/** The fields of an allowed IP range; only their presence is checked, no IP format (spec 02 §5). */
export const allowedIpFields = {
  name: z.string().trim().min(1, 'Name is required.'),
  fromIP: z.string().trim().min(1, 'From IP is required.'),
  toIP: z.string().trim().min(1, 'To IP is required.'),
};

/** The input of a new range. */
export const createAllowedIpInput = z.object({
  userId: z.string().trim().min(1, 'User is required.'),
  ...allowedIpFields,
}) satisfies z.ZodType<CreateAllowedIpRequestJson>;

export type CreateAllowedIpInput = z.infer<typeof createAllowedIpInput>;

/** createAllowedIp adds a range for a user (POST {gatewayUrl}/api/v1/user/users/ips) and returns it. */
export async function createAllowedIp(input: CreateAllowedIpInput): Promise<AllowedIpJson | undefined> {
  const body = createAllowedIpInput.parse(input);
  return api.post<AllowedIpJson | undefined>('gateway', '/api/v1/user/users/ips', body);
}

/** useCreateAllowedIp is the mutation of createAllowedIp; the user's list reloads afterwards. */
export function useCreateAllowedIp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createAllowedIp,
    onSuccess: (_, input) => client.invalidateQueries({ queryKey: [...ALLOWED_IPS_KEY, input.userId] }),
  });
}
