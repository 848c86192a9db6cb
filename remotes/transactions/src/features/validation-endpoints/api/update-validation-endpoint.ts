import { useMutation } from '@tanstack/react-query';
import type { UpdateValidationEndpointRequestJson } from '@paygate/gen/gateway/v1/validation_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toValidationEndpoint, type ValidationEndpoint, type ValidationEndpointWire } from './types';

/** A row edit: every field of the row, the collab included (an edit may move the endpoint). */
export const updateValidationEndpointInput = z.object({
  id: z.string().regex(/^\d+$/),
  collabId: z.number().int().positive(),
  url: z.string().trim().min(1),
  priority: z.number().int().min(1).max(100),
  awaitable: z.boolean(),
  forCashIn: z.boolean(),
  forCashOut: z.boolean(),
});

export type UpdateValidationEndpointInput = z.infer<typeof updateValidationEndpointInput>;

/** updateValidationEndpoint changes an endpoint (POST {gatewayUrl}/api/v1/collabs/validation-endpoints/{id}); the answer is the stored endpoint. */
export async function updateValidationEndpoint(input: UpdateValidationEndpointInput): Promise<ValidationEndpoint> {
  const body: UpdateValidationEndpointRequestJson = updateValidationEndpointInput.parse(input);
  return toValidationEndpoint(await api.post<ValidationEndpointWire>('gateway', `/api/v1/collabs/validation-endpoints/${body.id}`, body));
}

/** useUpdateValidationEndpoint is the mutation of updateValidationEndpoint. */
export function useUpdateValidationEndpoint() {
  return useMutation({ mutationFn: updateValidationEndpoint });
}
