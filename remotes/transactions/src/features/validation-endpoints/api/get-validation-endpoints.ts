import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toValidationEndpoint, type ValidationEndpoint, type ValidationEndpointWire } from './types';

/** The input of the list: a collab. */
export const validationEndpointsInput = z.object({ collabId: z.number().int().positive() });

export type ValidationEndpointsInput = z.infer<typeof validationEndpointsInput>;

/** fetchValidationEndpoints lists a collab's endpoints by priority (GET {gatewayUrl}/api/v1/collabs/{id}/validation-endpoints; a bare list). */
export async function fetchValidationEndpoints(input: ValidationEndpointsInput, signal?: AbortSignal): Promise<ValidationEndpoint[]> {
  const { collabId } = validationEndpointsInput.parse(input);
  const body = await api.get<ValidationEndpointWire[] | undefined>('gateway', `/api/v1/collabs/${collabId}/validation-endpoints`, { signal });
  return (Array.isArray(body) ? body : []).map(toValidationEndpoint);
}

/** validationEndpointsQuery is the query of one collab's list; keys start with 'validation-endpoints'. */
export const validationEndpointsQuery = (input: ValidationEndpointsInput) =>
  queryOptions({
    queryKey: ['validation-endpoints', input.collabId],
    queryFn: ({ signal }) => fetchValidationEndpoints(input, signal),
  });

/** useValidationEndpoints reads a collab's list; nothing is read while the collab is null. */
export function useValidationEndpoints(collabId: number | null) {
  return useQuery({ ...validationEndpointsQuery({ collabId: collabId ?? 1 }), enabled: collabId !== null });
}
