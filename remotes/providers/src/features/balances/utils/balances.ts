/**
 * The Balances page's arithmetic and previews (spec 02 §9): totals per
 * currency with exact decimal sums (the SDK's money module) shown with 2
 * decimals, and the raw response preview (arrays of 5 or fewer items show up
 * to 3; strings are cut at 10 characters).
 */

import { formatDecimal, isDecimal, sumDecimals } from '@paygate/sdk';

/** formatAmount shows a balance with 2 decimals, or '-' when there is none. */
export function formatAmount(amount: string): string {
  return isDecimal(amount) ? formatDecimal(amount) : '-';
}

/** Total is the sum of the balances in one currency. */
export interface Total {
  currency: string;
  amount: string;
  count: number;
}

/** totals sums the balances that have an amount, per currency, by currency code. */
export function totals(items: readonly { amount: string; currency: string }[]): Total[] {
  const amounts = new Map<string, string[]>();
  for (const it of items) {
    if (!isDecimal(it.amount)) continue;
    const cur = it.currency || 'PHP';
    const list = amounts.get(cur);
    if (list) list.push(it.amount);
    else amounts.set(cur, [it.amount]);
  }
  return [...amounts.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([currency, list]) => ({ currency, amount: formatDecimal(sumDecimals(list)), count: list.length }));
}

/** Preview limits of spec 02 §9. */
export const ARRAY_PREVIEW_MAX = 5;
export const ARRAY_PREVIEW_ITEMS = 3;
export const STRING_PREVIEW = 10;

/** previewString cuts a string at 10 characters. */
export function previewString(s: string): string {
  return s.length > STRING_PREVIEW ? `${s.slice(0, STRING_PREVIEW)}…` : s;
}

/**
 * preview is a one-line preview of a raw value: strings cut, arrays of 5 or
 * fewer items with up to 3 of them, longer arrays and objects by size.
 */
export function preview(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(previewString(v));
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    if (v.length > ARRAY_PREVIEW_MAX) return `Array(${v.length})`;
    const shown = v.slice(0, ARRAY_PREVIEW_ITEMS).map(preview);
    const more = v.length - shown.length;
    return `[${shown.join(', ')}${more > 0 ? `, … ${more} more` : ''}]`;
  }
  if (typeof v === 'object') return `{${Object.keys(v).length} keys}`;
  return String(v);
}
