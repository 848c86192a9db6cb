/**
 * The Balances page's arithmetic and previews (spec 02 §9): totals per
 * currency with exact decimal sums shown with 2 decimals, and the raw
 * response preview (arrays of 5 or fewer items show up to 3; strings are cut
 * at 10 characters).
 */

const SCALE = 8;
const UNIT = 10n ** BigInt(SCALE);

/** toUnits reads a decimal string as an integer of 10^-8 units, or null when it is not a decimal. */
export function toUnits(amount: string): bigint | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) return null;
  const frac = (m[3] ?? '').slice(0, SCALE).padEnd(SCALE, '0');
  const v = BigInt(m[2]!) * UNIT + BigInt(frac);
  return m[1] ? -v : v;
}

/** formatUnits writes units with 2 decimals (half away from zero) and thousands separators. */
export function formatUnits(units: bigint): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const step = 10n ** BigInt(SCALE - 2);
  const cents = (abs + step / 2n) / step;
  const whole = (cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const frac = (cents % 100n).toString().padStart(2, '0');
  return `${neg && cents > 0n ? '-' : ''}${whole}.${frac}`;
}

/** formatAmount shows a balance with 2 decimals, or '-' when there is none. */
export function formatAmount(amount: string): string {
  const u = amount ? toUnits(amount) : null;
  return u === null ? '-' : formatUnits(u);
}

/** Total is the sum of the balances in one currency. */
export interface Total {
  currency: string;
  amount: string;
  count: number;
}

/** totals sums the balances that have an amount, per currency, by currency code. */
export function totals(items: readonly { amount: string; currency: string }[]): Total[] {
  const sums = new Map<string, { units: bigint; count: number }>();
  for (const it of items) {
    const u = it.amount ? toUnits(it.amount) : null;
    if (u === null) continue;
    const cur = it.currency || 'PHP';
    const s = sums.get(cur) ?? { units: 0n, count: 0 };
    sums.set(cur, { units: s.units + u, count: s.count + 1 });
  }
  return [...sums.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([currency, s]) => ({ currency, amount: formatUnits(s.units), count: s.count }));
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
