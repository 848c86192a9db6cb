import { useMemo } from 'react';
import { seesAllMerchants } from './requirement';
import { useUser } from './console';
import { merchantScope } from './merchant-filter';
import { useSelectedMerchant } from './preferences';

/** CollabNames is what a collab picker needs of a collab: its id and whose it is. */
export interface CollabNames {
  id: number;
  merchantId: number;
  merchantName: string;
  providerName: string;
}

/** CollabChoice is one option of a collab picker. */
export interface CollabChoice {
  id: number;
  label: string;
}

const baseLabel = (c: CollabNames, admin: boolean) => (admin ? `${c.merchantName} - ${c.providerName}` : c.providerName);
const withMerchant = (c: CollabNames, admin: boolean) =>
  admin ? `${c.merchantName} (${c.merchantId}) - ${c.providerName}` : `${c.providerName} · ${c.merchantName} (${c.merchantId})`;

/** relabel replaces the labels that more than one collab shares with `next`'s. */
function relabel(labels: Map<number, string>, collabs: readonly CollabNames[], next: (c: CollabNames) => string): void {
  const count = new Map<string, number>();
  for (const l of labels.values()) count.set(l, (count.get(l) ?? 0) + 1);
  for (const c of collabs) if ((count.get(labels.get(c.id)!) ?? 0) > 1) labels.set(c.id, next(c));
}

/**
 * collabLabels names each collab so that no two of `collabs` read the same:
 * "merchant - provider" for admins and the provider for others (spec 02 §2);
 * where two would read the same, the merchant's name and id are added
 * ("GoVip · Acme Games (1)"), and where they still would, the collab's id.
 */
export function collabLabels(collabs: readonly CollabNames[], admin: boolean): Map<number, string> {
  const labels = new Map(collabs.map((c) => [c.id, baseLabel(c, admin)]));
  relabel(labels, collabs, (c) => withMerchant(c, admin));
  relabel(labels, collabs, (c) => `${labels.get(c.id)} · collab ${c.id}`);
  return labels;
}

/**
 * collabsOfMerchant keeps the collabs of merchant `merchantId` (see
 * merchantScope), or all of them for null; `keep` (a collab already chosen,
 * such as an edited row's) stays offered even when it is another merchant's.
 */
export function collabsOfMerchant<T extends Pick<CollabNames, 'id' | 'merchantId'>>(collabs: readonly T[], merchantId: number | null, keep?: number | null): T[] {
  if (merchantId === null) return [...collabs];
  return collabs.filter((c) => c.merchantId === merchantId || c.id === keep);
}

/**
 * collabChoices is what a collab picker offers: the collabs of the merchant
 * the view follows, each labelled apart from the others it is listed with.
 */
export function collabChoices(collabs: readonly CollabNames[], { admin, merchantId, keep }: { admin: boolean; merchantId: number | null; keep?: number | null }): CollabChoice[] {
  const offered = collabsOfMerchant(collabs, merchantId, keep);
  const labels = collabLabels(offered, admin);
  return offered.map((c) => ({ id: c.id, label: labels.get(c.id)! }));
}

/**
 * useCollabChoices is collabChoices for the signed-in user and the sidebar's
 * Current Merchant (spec 01 §4): every collab picker of the console lists
 * its collabs through it.
 */
export function useCollabChoices(collabs: readonly CollabNames[] | undefined, keep?: number | null): CollabChoice[] {
  const user = useUser();
  const [selected] = useSelectedMerchant();
  const admin = seesAllMerchants(user);
  const merchantId = merchantScope(user, selected);
  return useMemo(() => collabChoices(collabs ?? [], { admin, merchantId, keep }), [collabs, admin, merchantId, keep]);
}
