import { useMutation } from '@tanstack/react-query';
import type { ValidationResultJson } from '@paygate/gen/gateway/v1/validation_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toValidationResult, type ValidationResult } from './get-validation-results';

/** The input of a retry: the validation result's id. */
export const retryValidationInput = z.object({ validationId: z.string().regex(/^\d+$/) });

export type RetryValidationInput = z.infer<typeof retryValidationInput>;

/** retryValidation asks a result's endpoint again and answers the result after it replied (POST {gatewayUrl}/api/v1/validation/{id}/retry). */
export async function retryValidation(input: RetryValidationInput): Promise<ValidationResult> {
  const { validationId } = retryValidationInput.parse(input);
  return toValidationResult((await api.post<ValidationResultJson | undefined>('gateway', `/api/v1/validation/${validationId}/retry`)) ?? {});
}

/** useRetryValidation is the mutation of retryValidation. */
export function useRetryValidation() {
  return useMutation({ mutationFn: retryValidation });
}
