import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import type { CredentialsObject } from '../utils/credentials';

const scalar = z.union([z.string(), z.number(), z.boolean()]);

/** The input of a credentials save: the collab and the whole object (one level of nesting). */
export const saveCredentialsInput = z.object({
  collabId: z.number().int().positive(),
  credentials: z.record(z.string(), z.union([scalar, z.record(z.string(), scalar)])),
});

export type SaveCredentialsInput = z.infer<typeof saveCredentialsInput>;

/**
 * saveCredentials replaces a collab's credentials (POST
 * {gatewayUrl}/api/v1/credentials?collabId=… with the object as the body) and
 * returns them as stored.
 */
export async function saveCredentials(input: SaveCredentialsInput): Promise<CredentialsObject> {
  const { collabId, credentials } = saveCredentialsInput.parse(input);
  const body = await api.post<CredentialsObject | null>('gateway', '/api/v1/credentials', credentials, { query: { collabId } });
  return body && typeof body === 'object' ? body : credentials;
}

/** useSaveCredentials is the mutation of saveCredentials. */
export function useSaveCredentials() {
  return useMutation({ mutationFn: saveCredentials });
}
