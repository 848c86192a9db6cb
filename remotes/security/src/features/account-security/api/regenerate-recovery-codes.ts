import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { RegenerateRecoveryCodesRequestJson, RegenerateRecoveryCodesResponseJson } from '@paygate/gen/auth/v1/second_factor_pb';
import { api } from '@paygate/sdk';
import { SECOND_FACTOR_KEY } from './get-second-factor';
import { proofInput, type ProofInput } from './second-factor-proof';

/** regenerateRecoveryCodes replaces the caller's recovery codes (POST {authUrl}/api/v1/second-factor/recovery-codes). */
export async function regenerateRecoveryCodes(input: ProofInput): Promise<string[]> {
  const body: RegenerateRecoveryCodesRequestJson = proofInput.parse(input);
  const res = await api.post<RegenerateRecoveryCodesResponseJson>('auth', '/api/v1/second-factor/recovery-codes', body);
  return res?.recoveryCodes ?? [];
}

/** useRegenerateRecoveryCodes is the mutation of regenerateRecoveryCodes. */
export function useRegenerateRecoveryCodes() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: regenerateRecoveryCodes,
    onSuccess: () => client.invalidateQueries({ queryKey: SECOND_FACTOR_KEY }),
  });
}
