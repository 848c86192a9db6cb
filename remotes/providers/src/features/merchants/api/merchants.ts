import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import type { MerchantJson } from '@paygate/gen/gateway/v1/merchants_pb';

/** MerchantDetail is a merchant as the Merchants page shows it (docs/contracts-merchants.md). */
export interface MerchantDetail {
  id: number;
  name: string;
  hash: string;
  contactName: string;
  contactEmail: string;
  disabled: boolean;
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
