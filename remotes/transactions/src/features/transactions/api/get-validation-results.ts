import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ValidationResultJson } from '@paygate/gen/gateway/v1/validation_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The input of the read: a transaction id. */
export const validationResultsInput = z.object({ id: z.string().regex(/^\d+$/) });

export type ValidationResultsInput = z.infer<typeof validationResultsInput>;

/** ValidationResult is one endpoint's answer for a transaction (spec 02 §3). */
export interface ValidationResult {
  validationId: string;
  validationUrl: string;
  /** 1 success, 0 pending, -1 failed. */
  status: number;
  isAwaitable: boolean;
  message: string;
  /** The endpoint's HTTP status, 0 when it did not answer. */
  responseCode: number;
  attempts: number;
  updatedUtc: string;
}

/** toValidationResult fills the defaults proto3 JSON leaves out. */
export function toValidationResult(r: ValidationResultJson): ValidationResult {
  return {
    validationId: String(r.validationId ?? ''),
    validationUrl: r.validationUrl ?? '',
    status: r.status ?? 0,
    isAwaitable: r.isAwaitable ?? false,
    message: r.message ?? '',
    responseCode: r.responseCode ?? 0,
    attempts: r.attempts ?? 0,
    updatedUtc: r.updatedUtc ?? '',
  };
}

/** fetchValidationResults reads a transaction's validation results (GET {gatewayUrl}/api/v1/transactions/{id}/validation; a bare list). */
export async function fetchValidationResults(input: ValidationResultsInput, signal?: AbortSignal): Promise<ValidationResult[]> {
  const { id } = validationResultsInput.parse(input);
  const body = await api.get<ValidationResultJson[] | undefined>('gateway', `/api/v1/transactions/${id}/validation`, { signal });
  return (Array.isArray(body) ? body : []).map(toValidationResult);
}

/** validationResultsQuery is the query of a transaction's results; its key starts with 'transactions'. */
export const validationResultsQuery = (input: ValidationResultsInput) =>
  queryOptions({
    queryKey: ['transactions', 'validation', input.id],
    queryFn: ({ signal }) => fetchValidationResults(input, signal),
  });

/** useValidationResults reads a transaction's results. */
export function useValidationResults(id: string) {
  return useQuery(validationResultsQuery({ id }));
}
