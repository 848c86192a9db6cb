import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import type { MerchantJson, MerchantSecretJson } from '@paygate/gen/gateway/v1/merchants_pb';

/** MerchantDetail is a merchant as the Merchants page shows it (docs/contracts-merchants.md). */
export interface MerchantDetail {
  id: number;
  name: string;
  hash: string;
  contactName: string;
  contactEmail: string;
  disabled: boolean;
}

/** SecretState is a secret's state: accepted without expiry, accepted until expiresAt, no longer accepted. */
export type SecretState = 'active' | 'expiring' | 'expired' | 'revoked';

/** MerchantSecret is one API secret of a merchant, without its value. */
export interface MerchantSecret {
  id: string;
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  state: SecretState;
}

/** CreatedSecret is a new secret with its value, shown this once. */
export interface CreatedSecret {
  secret: MerchantSecret;
  value: string;
  merchantHash: string;
}

/** MerchantFields are the editable fields of a merchant. */
export interface MerchantFields {
  name?: string;
  contactName?: string;
  contactEmail?: string;
  disabled?: boolean;
}

export function toMerchant(m: MerchantJson | null | undefined): MerchantDetail {
  return {
    id: m?.id ?? 0,
    name: m?.name ?? '',
    hash: m?.hash ?? '',
    contactName: m?.contactName ?? '',
    contactEmail: m?.contactEmail ?? '',
    disabled: m?.disabled === true,
  };
}

export function toSecret(s: MerchantSecretJson | null | undefined): MerchantSecret {
  const state = s?.state;
  return {
    id: String(s?.id ?? ''),
    createdAt: s?.createdAt ?? '',
    createdBy: s?.createdBy ?? '',
    lastUsedAt: s?.lastUsedAt ?? null,
    expiresAt: s?.expiresAt ?? null,
    state: state === 'expiring' || state === 'expired' || state === 'revoked' ? state : 'active',
  };
}

/** The query key of the Merchants page's list (the pickers' list is the SDK's merchantsQuery). */
export const MERCHANT_DETAILS_KEY = ['merchants', 'details'] as const;

/** useMerchantDetails lists every merchant with contact and status (GET {gatewayUrl}/api/v1/merchants). */
export function useMerchantDetails() {
  return useQuery({
    queryKey: MERCHANT_DETAILS_KEY,
    queryFn: async ({ signal }) => ((await api.get<MerchantJson[]>('gateway', '/api/v1/merchants', { signal })) ?? []).map(toMerchant),
  });
}

/** useSaveMerchant adds a merchant (POST /api/v1/merchants) or changes one (PUT /api/v1/merchants/{id}). */
export function useSaveMerchant() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, fields }: { id?: number; fields: MerchantFields }) =>
      toMerchant(
        id === undefined
          ? await api.post<MerchantJson>('gateway', '/api/v1/merchants', fields)
          : await api.request<MerchantJson>('gateway', `/api/v1/merchants/${id}`, { method: 'PUT', body: fields }),
      ),
    // Every merchant list (the pickers' too) shows the change.
    onSuccess: () => client.invalidateQueries({ queryKey: ['merchants'] }),
  });
}

const secretsKey = (merchantId: number) => ['merchant-secrets', merchantId] as const;

/** useMerchantSecrets lists a merchant's secrets, newest first (GET /api/v1/merchants/{id}/secrets). */
export function useMerchantSecrets(merchantId: number) {
  return useQuery({
    queryKey: secretsKey(merchantId),
    queryFn: async ({ signal }) =>
      ((await api.get<MerchantSecretJson[]>('gateway', `/api/v1/merchants/${merchantId}/secrets`, { signal })) ?? []).map(toSecret),
  });
}

/**
 * useCreateSecret creates a secret (POST /api/v1/merchants/{id}/secrets); the
 * merchant's other secrets stay accepted overlapSeconds longer (the server's
 * default, 24 h, when undefined; 0 ends them at once).
 */
export function useCreateSecret(merchantId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (overlapSeconds?: number) => {
      const body = await api.post<{ secret?: MerchantSecretJson; value?: string; merchantHash?: string }>(
        'gateway',
        `/api/v1/merchants/${merchantId}/secrets`,
        overlapSeconds === undefined ? {} : { overlapSeconds },
      );
      return { secret: toSecret(body?.secret), value: body?.value ?? '', merchantHash: body?.merchantHash ?? '' } satisfies CreatedSecret;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: secretsKey(merchantId) }),
  });
}

/** useRevokeSecret stops accepting a secret at once (POST /api/v1/merchants/{id}/secrets/{secretId}/revoke). */
export function useRevokeSecret(merchantId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (secretId: string) =>
      toSecret(await api.post<MerchantSecretJson>('gateway', `/api/v1/merchants/${merchantId}/secrets/${secretId}/revoke`, {})),
    onSuccess: () => client.invalidateQueries({ queryKey: secretsKey(merchantId) }),
  });
}
