import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DeleteAllowedIpRequestJson } from '@paygate/gen/auth/v1/allowed_ips_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { ALLOWED_IPS_KEY } from './get-user-allowed-ips';

/** The input of a removal: the range's id and, to reload their list, its user. */
export const deleteAllowedIpInput = z.object({
  id: z.string().trim().min(1),
  userId: z.string().trim().min(1),
}) satisfies z.ZodType<DeleteAllowedIpRequestJson>;

export type DeleteAllowedIpInput = z.infer<typeof deleteAllowedIpInput>;

/** deleteAllowedIp removes a range (DELETE {gatewayUrl}/api/v1/user/users/ips/{id}). */
export async function deleteAllowedIp(input: DeleteAllowedIpInput): Promise<void> {
  const { id } = deleteAllowedIpInput.parse(input);
  await api.request('gateway', `/api/v1/user/users/ips/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** useDeleteAllowedIp is the mutation of deleteAllowedIp; the user's list reloads afterwards. */
export function useDeleteAllowedIp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteAllowedIp,
    onSuccess: (_, input) => client.invalidateQueries({ queryKey: [...ALLOWED_IPS_KEY, input.userId] }),
  });
}
