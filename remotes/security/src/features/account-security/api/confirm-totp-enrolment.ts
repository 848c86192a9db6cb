import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ConfirmTotpEnrolmentRequestJson, ConfirmTotpEnrolmentResponseJson } from '@paygate/gen/auth/v1/second_factor_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { SECOND_FACTOR_KEY } from './get-second-factor';

/** The input of a confirmation: the new key's current code. */
export const confirmTotpInput = z.object({
  code: z.string().regex(/^\d{6}$/, 'Enter the 6 digits your authenticator app shows.'),
}) satisfies z.ZodType<ConfirmTotpEnrolmentRequestJson>;

export type ConfirmTotpInput = z.infer<typeof confirmTotpInput>;

/** confirmTotpEnrolment enrols the pending key and returns the recovery codes (POST {authUrl}/api/v1/second-factor/totp/confirm). */
export async function confirmTotpEnrolment(input: ConfirmTotpInput): Promise<string[]> {
  const body = confirmTotpInput.parse(input);
  const res = await api.post<ConfirmTotpEnrolmentResponseJson>('auth', '/api/v1/second-factor/totp/confirm', body);
  return res?.recoveryCodes ?? [];
}

/** useConfirmTotpEnrolment is the mutation of confirmTotpEnrolment; the status is read again. */
export function useConfirmTotpEnrolment() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: confirmTotpEnrolment,
    onSuccess: () => client.invalidateQueries({ queryKey: SECOND_FACTOR_KEY }),
  });
}
