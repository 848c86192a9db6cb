import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DeletePasskeyRequestJson, PasskeyJson } from '@paygate/gen/auth/v1/webauthn_pb';
import { deletePasskey } from '@paygate/sdk';
import { z } from 'zod';
import { PASSKEYS_KEY } from './get-passkeys';

/** The input of a removal: the passkey's id. */
export const deletePasskeyInput = z.object({
  id: z.string().trim().min(1),
}) satisfies z.ZodType<DeletePasskeyRequestJson>;

export type DeletePasskeyInput = z.infer<typeof deletePasskeyInput>;

/** removePasskey deletes one of the signed-in user's passkeys (DELETE {authUrl}/api/v1/webauthn/credentials/{id}, through the SDK). */
export async function removePasskey(input: DeletePasskeyInput): Promise<void> {
  const { id } = deletePasskeyInput.parse(input);
  await deletePasskey(id);
}

/** useDeletePasskey is the mutation of removePasskey; the removed passkey leaves the list at once. */
export function useDeletePasskey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: removePasskey,
    onSuccess: (_, { id }) => {
      client.setQueryData<PasskeyJson[]>(PASSKEYS_KEY, (list) => list?.filter((p) => p.id !== id));
      return client.invalidateQueries({ queryKey: PASSKEYS_KEY });
    },
  });
}
