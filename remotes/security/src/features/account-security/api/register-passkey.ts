import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { BeginPasskeyRegistrationRequestJson } from '@paygate/gen/auth/v1/webauthn_pb';
import { registerPasskey } from '@paygate/sdk';
import { z } from 'zod';
import { PASSKEYS_KEY } from './get-passkeys';

/** The input of a registration: an optional name for the new passkey (spec 02 §5). */
export const registerPasskeyInput = z.object({
  displayName: z.string().trim(),
}) satisfies z.ZodType<BeginPasskeyRegistrationRequestJson>;

export type RegisterPasskeyInput = z.infer<typeof registerPasskeyInput>;

/** createPasskey runs the SDK's registration ceremony for the signed-in user. */
export async function createPasskey(input: RegisterPasskeyInput): Promise<void> {
  const { displayName } = registerPasskeyInput.parse(input);
  await registerPasskey(displayName);
}

/** useRegisterPasskey is the mutation of createPasskey; the passkey list reloads afterwards. */
export function useRegisterPasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: createPasskey,
    onSuccess: () => client.invalidateQueries({ queryKey: PASSKEYS_KEY }),
  });
}
