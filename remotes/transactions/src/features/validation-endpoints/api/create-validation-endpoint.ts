import { useMutation } from '@tanstack/react-query';
import type { CreateValidationEndpointRequestJson } from '@paygate/gen/gateway/v1/validation_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toValidationEndpoint, type ValidationEndpoint, type ValidationEndpointWire } from './types';

/** The "Add Validation Endpoint" payload (spec 02 §5: priority 1 to 100). */
export const createValidationEndpointInput = z.object({
  collabId: z.number().int().positive(),
  url: z.string().trim().min(1),
  priority: z.number().int().min(1).max(100),
  awaitable: z.boolean(),
  forCashIn: z.boolean(),
  forCashOut: z.boolean(),
});

export type CreateValidationEndpointInput = z.infer<typeof createValidationEndpointInput>;

/** createValidationEndpoint adds an endpoint to a collab (POST {gatewayUrl}/api/v1/collabs/validation-endpoints); the answer is the stored endpoint. */
export async function createValidationEndpoint(input: CreateValidationEndpointInput): Promise<ValidationEndpoint> {
  const body: CreateValidationEndpointRequestJson = createValidationEndpointInput.parse(input);
  return toValidationEndpoint(await api.post<ValidationEndpointWire>('gateway', '/api/v1/collabs/validation-endpoints', body));
}

/** useCreateValidationEndpoint is the mutation of createValidationEndpoint. */
export function useCreateValidationEndpoint() {
  return useMutation({ mutationFn: createValidationEndpoint });
}
