import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DisableSecondFactorRequestJson } from '@paygate/gen/auth/v1/second_factor_pb';
import { api } from '@paygate/sdk';
import { SECOND_FACTOR_KEY } from './get-second-factor';
import { proofInput, type ProofInput } from './second-factor-proof';

/** DisableInput is a code, a recovery code, or a passkey assertion of the caller's. */
export type DisableInput = ProofInput | { passkeyCredential: Record<string, unknown> };

/** disableSecondFactor removes the caller's second factor (POST {authUrl}/api/v1/second-factor/disable). */
export async function disableSecondFactor(input: DisableInput): Promise<void> {
  const body: DisableSecondFactorRequestJson =
    'passkeyCredential' in input ? { passkeyCredential: input.passkeyCredential as DisableSecondFactorRequestJson['passkeyCredential'] } : proofInput.parse(input);
  await api.post('auth', '/api/v1/second-factor/disable', body);
}

/** useDisableSecondFactor is the mutation of disableSecondFactor. */
export function useDisableSecondFactor() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: disableSecondFactor,
    onSuccess: () => client.invalidateQueries({ queryKey: SECOND_FACTOR_KEY }),
  });
}
