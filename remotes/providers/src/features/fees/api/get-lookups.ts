import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CollabJson, ListCollabsResponseJson } from '@paygate/gen/gateway/v1/collabs_pb';
import type { CurrencyJson } from '@paygate/gen/gateway/v1/currencies_pb';
import type { PayTypeJson } from '@paygate/gen/gateway/v1/paytypes_pb';
import { api } from '@paygate/sdk';

/** Option is a choice of the fee filters and dialog. */
export interface Option {
  id: number;
  label: string;
}

/** CollabOption is a collab the caller sees, with its merchant and provider names. */
export interface CollabOption {
  id: number;
  merchantId: number;
  merchantName: string;
  providerName: string;
}

/** fetchCollabs lists the collabs the caller sees (GET {gatewayUrl}/api/v1/merchant-collabs; object or bare list). */
export async function fetchCollabs(signal?: AbortSignal): Promise<CollabOption[]> {
  const body = await api.get<CollabJson[] | ListCollabsResponseJson | undefined>('gateway', '/api/v1/merchant-collabs', { signal });
  const list = Array.isArray(body) ? body : (body?.collabs ?? []);
  return list.map((c) => ({ id: c.id ?? 0, merchantId: c.merchant?.id ?? 0, merchantName: c.merchant?.name ?? '', providerName: c.provider?.name ?? '' }));
}

/** fetchCurrencies lists the currencies (GET {gatewayUrl}/api/v1/currencies). */
export async function fetchCurrencies(signal?: AbortSignal): Promise<Option[]> {
  const body = await api.get<CurrencyJson[] | undefined>('gateway', '/api/v1/currencies', { signal });
  return (body ?? []).map((c) => ({ id: c.id ?? 0, label: c.code ?? '' }));
}

/** fetchPayTypes lists the pay types (GET {gatewayUrl}/api/v1/pay-types). */
export async function fetchPayTypes(signal?: AbortSignal): Promise<Option[]> {
  const body = await api.get<PayTypeJson[] | undefined>('gateway', '/api/v1/pay-types', { signal });
  return (body ?? []).map((p) => ({ id: p.id ?? 0, label: p.name ?? p.code ?? '' }));
}

const STATIC = { staleTime: 5 * 60_000 };

export const feeCollabsQuery = () => queryOptions({ queryKey: ['fees', 'collabs'], queryFn: ({ signal }) => fetchCollabs(signal), ...STATIC });
export const currenciesQuery = () => queryOptions({ queryKey: ['currencies'], queryFn: ({ signal }) => fetchCurrencies(signal), ...STATIC });
export const payTypesQuery = () => queryOptions({ queryKey: ['pay-types'], queryFn: ({ signal }) => fetchPayTypes(signal), ...STATIC });

/** useFeeLookups reads the collabs, currencies and pay types the page names. */
export function useFeeLookups() {
  const collabs = useQuery(feeCollabsQuery());
  const currencies = useQuery(currenciesQuery());
  const payTypes = useQuery(payTypesQuery());
  return { collabs: collabs.data ?? [], currencies: currencies.data ?? [], payTypes: payTypes.data ?? [] };
}
