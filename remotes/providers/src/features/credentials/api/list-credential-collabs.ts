import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import type { CredentialCollabJson } from '@paygate/gen/gateway/v1/credentials_pb';

/** CredentialCollab is a collab the credentials page offers. */
export interface CredentialCollab {
  collabId: number;
  merchantId: number;
  merchantName: string;
  providerName: string;
}

/**
 * fetchCredentialCollabs lists the collabs in the caller's scope whose
 * credentials the caller may edit (GET {gatewayUrl}/api/v1/credentials/collabs,
 * Credentials Access).
 */
export async function fetchCredentialCollabs(signal?: AbortSignal): Promise<CredentialCollab[]> {
  const body = await api.get<CredentialCollabJson[]>('gateway', '/api/v1/credentials/collabs', { signal });
  return (Array.isArray(body) ? body : []).map((c) => ({
    collabId: c.collabId ?? 0,
    merchantId: c.merchantId ?? 0,
    merchantName: c.merchantName ?? '',
    providerName: c.providerName ?? '',
  }));
}

/** credentialCollabsQuery is the query of the dropdown's collabs. */
export const credentialCollabsQuery = () =>
  queryOptions({
    queryKey: ['credentials', 'collabs'],
    queryFn: ({ signal }) => fetchCredentialCollabs(signal),
  });

/** useCredentialCollabs reads the dropdown's collabs. */
export function useCredentialCollabs() {
  return useQuery(credentialCollabsQuery());
}
