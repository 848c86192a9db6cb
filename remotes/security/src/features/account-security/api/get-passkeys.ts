import { queryOptions, useQuery } from '@tanstack/react-query';
import type { PasskeyJson } from '@paygate/gen/auth/v1/webauthn_pb';
import { listPasskeys } from '@paygate/sdk';

/** The key of the signed-in user's passkeys. */
export const PASSKEYS_KEY = ['security', 'passkeys'] as const;

/** fetchPasskeys reads the signed-in user's passkeys (GET {authUrl}/api/v1/webauthn/credentials, through the SDK). */
export function fetchPasskeys(signal?: AbortSignal): Promise<PasskeyJson[]> {
  return listPasskeys(signal);
}

/** passkeysQuery is the query of the signed-in user's passkeys. */
export const passkeysQuery = () =>
  queryOptions({
    queryKey: PASSKEYS_KEY,
    queryFn: ({ signal }) => fetchPasskeys(signal),
  });

/** usePasskeys reads the signed-in user's passkeys. */
export function usePasskeys() {
  return useQuery(passkeysQuery());
}
