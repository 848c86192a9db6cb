import { useMutation } from '@tanstack/react-query';
import type { ValidationResultJson } from '@paygate/gen/gateway/v1/validation_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toValidationResult, type ValidationResult } from './get-validation-results';

/** The input of a status change: the result and its new status (1 success, 0 pending, -1 failed). */
export const setValidationStatusInput = z.object({
  validationId: z.string().regex(/^\d+$/),
  status: z.union([z.literal(1), z.literal(0), z.literal(-1)]),
});

export type SetValidationStatusInput = z.infer<typeof setValidationStatusInput>;

/** setValidationStatus sets a validation result's status (POST {gatewayUrl}/api/v1/validation/{id}/status/{status}). */
export async function setValidationStatus(input: SetValidationStatusInput): Promise<ValidationResult> {
  const { validationId, status } = setValidationStatusInput.parse(input);
  return toValidationResult((await api.post<ValidationResultJson | undefined>('gateway', `/api/v1/validation/${validationId}/status/${status}`)) ?? {});
}

/** useSetValidationStatus is the mutation of setValidationStatus. */
export function useSetValidationStatus() {
  return useMutation({ mutationFn: setValidationStatus });
}
