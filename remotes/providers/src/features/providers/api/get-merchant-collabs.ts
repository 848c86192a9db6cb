import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toMerchantCollabs, type MerchantCollabs, type MerchantCollabsWire } from './types';

/** The input of the collab list: optionally one merchant. */
export const merchantCollabsInput = z.object({
  merchantId: z.number().int().positive().optional(),
});

export type MerchantCollabsInput = z.infer<typeof merchantCollabsInput>;

/**
 * fetchMerchantCollabs lists the collabs the caller may see with the
 * maintenance flag (GET {gatewayUrl}/api/v1/merchant-collabs); it accepts the
 * object answer and a bare list alike.
 */
export async function fetchMerchantCollabs(input: MerchantCollabsInput, signal?: AbortSignal): Promise<MerchantCollabs> {
  const { merchantId } = merchantCollabsInput.parse(input);
  const body = await api.get<MerchantCollabsWire>('gateway', '/api/v1/merchant-collabs', { query: { merchantId }, signal });
  return toMerchantCollabs(body);
}

/** merchantCollabsQuery is the query of the collab list; its key starts with 'merchant-collabs'. */
export const merchantCollabsQuery = (input: MerchantCollabsInput) =>
  queryOptions({
    queryKey: ['merchant-collabs', input.merchantId ?? 'all'],
    queryFn: ({ signal }) => fetchMerchantCollabs(input, signal),
  });

/** useMerchantCollabs reads the collab list. */
export function useMerchantCollabs(input: MerchantCollabsInput) {
  return useQuery(merchantCollabsQuery(input));
}
