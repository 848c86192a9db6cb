import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CollabJson, ListCollabsResponseJson } from '@paygate/gen/gateway/v1/collabs_pb';
import { api, collabLabels } from '@paygate/sdk';
import { z } from 'zod';

/**
 * CollabOption is a collab as the collab selectors of this remote list it
 * (Transactions, Callbacks and Validation Endpoints share this call).
 */
export interface CollabOption {
  id: number;
  merchantId: number;
  merchantName: string;
  providerId: number;
  providerName: string;
}

/** The input of the collab list: optionally one merchant. */
export const collabsInput = z.object({ merchantId: z.number().int().positive().optional() });

export type CollabsInput = z.infer<typeof collabsInput>;

/** fetchCollabs lists the collabs the caller may see (GET {gatewayUrl}/api/v1/merchant-collabs); object or bare list. */
export async function fetchCollabs(input: CollabsInput, signal?: AbortSignal): Promise<CollabOption[]> {
  const { merchantId } = collabsInput.parse(input);
  const body = await api.get<CollabJson[] | ListCollabsResponseJson>('gateway', '/api/v1/merchant-collabs', { query: { merchantId }, signal });
  const list = Array.isArray(body) ? body : (body?.collabs ?? []);
  return list.map((c) => ({
    id: c.id ?? 0,
    merchantId: c.merchant?.id ?? 0,
    merchantName: c.merchant?.name ?? '',
    providerId: c.provider?.id ?? 0,
    providerName: c.provider?.name ?? '',
  }));
}

/**
 * collabsQuery is the query of the collab list. Its key starts with
 * 'merchant-collabs', so that a change on the Providers page (which
 * invalidates that prefix) refreshes it too; 'options' keeps it apart from
 * the Providers page's own entry of the same call, which holds the answer's
 * object, not these options, in the console's one shared query cache.
 */
export const collabsQuery = (input: CollabsInput) =>
  queryOptions({
    queryKey: ['merchant-collabs', 'options', input.merchantId ?? 'all'],
    queryFn: ({ signal }) => fetchCollabs(input, signal),
    staleTime: 60_000,
  });

/** useCollabs reads the collab list. */
export function useCollabs(input: CollabsInput) {
  return useQuery(collabsQuery(input));
}

/**
 * collabNamer names the collabs of the list apart from each other (the SDK's
 * collabLabels: merchant - provider for admins, provider for others, spec 02
 * §2), for tables and summaries; an id not in the list reads "Collab {id}".
 */
export function collabNamer(collabs: readonly CollabOption[] | undefined, admin: boolean): (id: number) => string {
  const labels = collabLabels(collabs ?? [], admin);
  return (id) => labels.get(id) ?? `Collab ${id}`;
}
