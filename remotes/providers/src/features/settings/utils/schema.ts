import type { SettingSchema } from '../api/types';
import { kindOf, type JsonValue } from './json-value';

/** rangeHint describes a numeric schema's bounds: 'from 1 to 1440', 'at least 2', or ''. */
export function rangeHint(s: SettingSchema | undefined): string {
  if (!s) return '';
  const { minimum: min, maximum: max } = s;
  if (min !== undefined && max !== undefined) return `from ${min} to ${max}`;
  if (min !== undefined) return `at least ${min}`;
  if (max !== undefined) return `at most ${max}`;
  return '';
}

/**
 * numberProblem says why n does not fit a numeric schema (a sentence), or
 * returns null when it does (or when there is no schema).
 */
export function numberProblem(n: number, s: SettingSchema | undefined): string | null {
  if (!s) return null;
  const what = `Enter a ${s.type === 'integer' ? 'whole ' : ''}number${rangeHint(s) ? ` ${rangeHint(s)}` : ''}.`;
  if (s.type === 'integer' && !Number.isInteger(n)) return what;
  if ((s.minimum !== undefined && n < s.minimum) || (s.maximum !== undefined && n > s.maximum)) return what;
  return null;
}

/** emptyValue is a fresh value for a schema (a new list item), or one like `like` when there is none. */
export function emptyValue(s: SettingSchema | undefined, like?: JsonValue): JsonValue {
  const type = s?.type || (like === undefined ? 'string' : kindOf(like));
  switch (type) {
    case 'integer':
    case 'number':
      return s?.minimum ?? 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object': {
      const out: Record<string, JsonValue> = {};
      for (const f of s?.properties ?? []) out[f.name] = emptyValue(f.schema);
      return out;
    }
    case 'null':
      return null;
    default:
      return '';
  }
}
