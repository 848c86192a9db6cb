import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import type { CredentialsObject } from '../utils/credentials';

/** The input of a credentials read: the collab. */
export const credentialsInput = z.object({ collabId: z.number().int().positive() });

export type CredentialsInput = z.infer<typeof credentialsInput>;

/**
 * fetchCredentials reads a collab's credentials (GET
 * {gatewayUrl}/api/v1/credentials?collabId=…, Credentials Access): a
 * key/value object, nested one level at most; {} when none are set.
 */
export async function fetchCredentials(input: CredentialsInput): Promise<CredentialsObject> {
  const { collabId } = credentialsInput.parse(input);
  const body = await api.get<CredentialsObject | null>('gateway', '/api/v1/credentials', { query: { collabId } });
  return body && typeof body === 'object' && !Array.isArray(body) ? body : {};
}

/** useLoadCredentials loads a collab's credentials when the operator asks (Load Credentials). */
export function useLoadCredentials() {
  return useMutation({ mutationFn: fetchCredentials });
}
