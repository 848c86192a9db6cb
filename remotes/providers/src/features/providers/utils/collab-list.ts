import type { Collab } from '../api/types';
import { badgeSeverity, type Severity } from './collab-status';

/** SortKey is what the collab list sorts by. */
export type SortKey = 'provider' | 'merchant' | 'status';
export type SortDirection = 'asc' | 'desc';

/** SORT_KEYS label the keys for the sort control. */
export const SORT_KEYS: readonly { value: SortKey; label: string }[] = [
  { value: 'provider', label: 'Provider' },
  { value: 'merchant', label: 'Merchant' },
  { value: 'status', label: 'Status' },
];

/** Healthy first: the order of the status sort, ascending. */
const STATUS_RANK: Record<Severity, number> = { success: 0, warning: 1, danger: 2, secondary: 3 };

const text = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'base', numeric: true });

function compareBy(key: SortKey, a: Collab, b: Collab): number {
  switch (key) {
    case 'provider':
      return text(a.provider.name, b.provider.name);
    case 'merchant':
      return text(a.merchant.name, b.merchant.name);
    case 'status':
      return STATUS_RANK[badgeSeverity(a)] - STATUS_RANK[badgeSeverity(b)];
  }
}

/**
 * sortCollabs orders the list by the key in the direction, with enabled
 * collabs always before disabled ones (spec 01 §2). Ties fall back to
 * provider, merchant and id, ascending, so the order is stable.
 */
export function sortCollabs(list: readonly Collab[], key: SortKey, direction: SortDirection): Collab[] {
  const sign = direction === 'asc' ? 1 : -1;
  return [...list].sort(
    (a, b) =>
      Number(b.isEnabled) - Number(a.isEnabled) ||
      sign * compareBy(key, a, b) ||
      text(a.provider.name, b.provider.name) ||
      text(a.merchant.name, b.merchant.name) ||
      a.id - b.id,
  );
}

/** searchCollabs keeps the collabs whose provider name contains the text (case-insensitive). */
export function searchCollabs(list: readonly Collab[], search: string): Collab[] {
  const q = search.trim().toLocaleLowerCase();
  if (!q) return [...list];
  return list.filter((c) => c.provider.name.toLocaleLowerCase().includes(q));
}

/** merchantsOf lists the distinct merchants of the collabs, by name. */
export function merchantsOf(list: readonly Collab[]): { id: number; name: string }[] {
  const byId = new Map<number, string>();
  for (const c of list) byId.set(c.merchant.id, c.merchant.name);
  return [...byId].map(([id, name]) => ({ id, name })).sort((a, b) => text(a.name, b.name) || a.id - b.id);
}
