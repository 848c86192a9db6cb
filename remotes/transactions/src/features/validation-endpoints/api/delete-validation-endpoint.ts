import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The input of a delete: the endpoint's id. */
export const deleteValidationEndpointInput = z.object({ id: z.string().regex(/^\d+$/) });

export type DeleteValidationEndpointInput = z.infer<typeof deleteValidationEndpointInput>;

/** deleteValidationEndpoint removes an endpoint (DELETE {gatewayUrl}/api/v1/collabs/validation-endpoints/{id}). */
export async function deleteValidationEndpoint(input: DeleteValidationEndpointInput): Promise<void> {
  const { id } = deleteValidationEndpointInput.parse(input);
  await api.request<unknown>('gateway', `/api/v1/collabs/validation-endpoints/${id}`, { method: 'DELETE' });
}

/** useDeleteValidationEndpoint is the mutation of deleteValidationEndpoint. */
export function useDeleteValidationEndpoint() {
  return useMutation({ mutationFn: deleteValidationEndpoint });
}
