/** JsonValue is any JSON value a setting may hold (spec 02 §3 Setting). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const NUMERIC = /^-?\d+(\.\d+)?$/;

/**
 * fromServer converts a value read from the server (spec 02 §5): numeric
 * strings become numbers and 'true'/'false' booleans, at any depth; every
 * other value stays as it is.
 */
export function fromServer(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') {
    const t = value.trim();
    if (t === 'true') return true;
    if (t === 'false') return false;
    if (NUMERIC.test(t)) {
      const n = Number(t);
      if (Number.isFinite(n)) return n;
    }
    return value;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map(fromServer);
  if (typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = fromServer(v);
    return out;
  }
  return null;
}

/** jsonEqual compares two JSON values deeply; object key order does not matter. */
export function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]!));
  const ao = a as Record<string, JsonValue>;
  const bo = b as Record<string, JsonValue>;
  const keys = Object.keys(ao);
  return keys.length === Object.keys(bo).length && keys.every((k) => k in bo && jsonEqual(ao[k]!, bo[k]!));
}

/** The most decimals a numeric input takes (spec 02 §5). */
export const MAX_DECIMALS = 20;

const NUMBER_TEXT = new RegExp(`^-?\\d+(\\.\\d{0,${MAX_DECIMALS}})?$`);

/** parseNumber reads a numeric input: digits with 0 to 20 decimals; null when it is not such a number. */
export function parseNumber(text: string): number | null {
  const t = text.trim();
  if (!NUMBER_TEXT.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

/** kindOf names a JSON value's type as the editor shows it. */
export function kindOf(value: JsonValue): 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as 'object' | 'string' | 'number' | 'boolean';
}
