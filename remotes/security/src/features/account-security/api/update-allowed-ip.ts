import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AllowedIpJson, UpdateAllowedIpRequestJson } from '@paygate/gen/auth/v1/allowed_ips_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { allowedIpFields } from './create-allowed-ip';
import { ALLOWED_IPS_KEY } from './get-user-allowed-ips';

/** The input of a range's update: its id, its user and its new fields. */
export const updateAllowedIpInput = z.object({
  id: z.string().trim().min(1),
  userId: z.string().trim().min(1, 'User is required.'),
  ...allowedIpFields,
}) satisfies z.ZodType<UpdateAllowedIpRequestJson>;

export type UpdateAllowedIpInput = z.infer<typeof updateAllowedIpInput>;

/** updateAllowedIp replaces a range (POST {gatewayUrl}/api/v1/user/users/ips/{id}) and returns it. */
export async function updateAllowedIp(input: UpdateAllowedIpInput): Promise<AllowedIpJson | undefined> {
  const { id, ...body } = updateAllowedIpInput.parse(input);
  return api.post<AllowedIpJson | undefined>('gateway', `/api/v1/user/users/ips/${encodeURIComponent(id)}`, body);
}

/** useUpdateAllowedIp is the mutation of updateAllowedIp; the user's list reloads afterwards. */
export function useUpdateAllowedIp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateAllowedIp,
    onSuccess: (_, input) => client.invalidateQueries({ queryKey: [...ALLOWED_IPS_KEY, input.userId] }),
  });
}
