import { queryOptions, useQuery } from '@tanstack/react-query';
import type { GetSecondFactorResponseJson } from '@paygate/gen/auth/v1/second_factor_pb';
import { api } from '@paygate/sdk';

/** SECOND_FACTOR_KEY is the query key of the caller's second factor. */
export const SECOND_FACTOR_KEY = ['auth', 'second-factor'] as const;

/** SecondFactorStatus is the caller's second factor, every field present. */
export interface SecondFactorStatus {
  enrolled: boolean;
  enrolledAt: string;
  recoveryCodesLeft: number;
  required: boolean;
}

/** fetchSecondFactor reads the caller's second factor (GET {authUrl}/api/v1/second-factor). */
export async function fetchSecondFactor(signal?: AbortSignal): Promise<SecondFactorStatus> {
  const res = await api.get<GetSecondFactorResponseJson>('auth', '/api/v1/second-factor', { signal });
  return {
    enrolled: res?.enrolled ?? false,
    enrolledAt: res?.enrolledAt ?? '',
    recoveryCodesLeft: res?.recoveryCodesLeft ?? 0,
    required: res?.required ?? false,
  };
}

/** secondFactorQuery is the query of fetchSecondFactor. */
export function secondFactorQuery() {
  return queryOptions({ queryKey: SECOND_FACTOR_KEY, queryFn: ({ signal }) => fetchSecondFactor(signal) });
}

/** useSecondFactor reads the caller's second factor. */
export function useSecondFactor() {
  return useQuery(secondFactorQuery());
}
