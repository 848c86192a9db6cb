/**
 * The credentials form's model (spec 02 §3 Credentials, §5): a free-form
 * key/value object, nested one level at most, whose values are text, numbers
 * or true/false. Each value becomes a field; a nested object becomes a group
 * of fields; number-typed fields are sent as numbers unless empty.
 */

/** CredentialScalar is one credential value. */
export type CredentialScalar = string | number | boolean;

/** CredentialsObject is a collab's credentials on the wire. */
export type CredentialsObject = Record<string, CredentialScalar | Record<string, CredentialScalar>>;

/** FieldKind is how a field is edited and sent. */
export type FieldKind = 'text' | 'number' | 'boolean';

/** CredentialField is one editable value: its group ('' at the top level), its key, its kind and its text. */
export interface CredentialField {
  group: string;
  key: string;
  kind: FieldKind;
  value: string;
}

/** fieldId names a field: 'key' or 'group.key'. */
export function fieldId(f: Pick<CredentialField, 'group' | 'key'>): string {
  return f.group ? `${f.group}.${f.key}` : f.key;
}

function scalarField(group: string, key: string, v: unknown): CredentialField {
  if (typeof v === 'number') return { group, key, kind: 'number', value: String(v) };
  if (typeof v === 'boolean') return { group, key, kind: 'boolean', value: String(v) };
  return { group, key, kind: 'text', value: v === null || v === undefined ? '' : String(v) };
}

/** toFields turns credentials into fields, top-level ones first, then each group's, in the object's order. */
export function toFields(c: CredentialsObject): CredentialField[] {
  const top: CredentialField[] = [];
  const grouped: CredentialField[] = [];
  for (const [key, v] of Object.entries(c)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [sub, sv] of Object.entries(v)) grouped.push(scalarField(key, sub, sv));
    } else {
      top.push(scalarField('', key, v));
    }
  }
  return [...top, ...grouped];
}

/** groupsOf lists the groups of fields in order, '' (the top level) first. */
export function groupsOf(fields: readonly CredentialField[]): string[] {
  const out: string[] = [];
  for (const f of fields) if (!out.includes(f.group)) out.push(f.group);
  return out.sort((a, b) => (a === '' ? -1 : b === '' ? 1 : 0));
}

/** sendValue is what a field sends: numbers as numbers unless empty (then ''), true/false as booleans. */
export function sendValue(f: CredentialField): CredentialScalar {
  if (f.kind === 'number') {
    const t = f.value.trim();
    return t === '' ? '' : Number(t);
  }
  if (f.kind === 'boolean') return f.value === 'true';
  return f.value;
}

/** numberError says why a number field's text is not a number, or null. */
export function numberError(f: CredentialField): string | null {
  if (f.kind !== 'number') return null;
  const t = f.value.trim();
  return t === '' || Number.isFinite(Number(t)) ? null : `${fieldId(f)} must be a number.`;
}

/** toCredentials rebuilds the object the server takes from the fields. */
export function toCredentials(fields: readonly CredentialField[]): CredentialsObject {
  const out: CredentialsObject = {};
  for (const f of fields) {
    if (!f.group) {
      out[f.key] = sendValue(f);
      continue;
    }
    const g = out[f.group];
    const group = g !== undefined && typeof g === 'object' ? g : {};
    group[f.key] = sendValue(f);
    out[f.group] = group;
  }
  return out;
}

/** parseNewKey reads the key of an added field: 'key' or 'group.key' (one level). */
export function parseNewKey(text: string): { group: string; key: string } | null {
  const parts = text.trim().split('.');
  if (parts.length > 2 || parts.some((p) => p.trim() === '')) return null;
  return parts.length === 2 ? { group: parts[0]!.trim(), key: parts[1]!.trim() } : { group: '', key: parts[0]!.trim() };
}

/** collabPlaceholder is the dropdown's placeholder (spec 02 §2 "Credentials"). */
export function collabPlaceholder(admin: boolean): string {
  return admin ? 'Select Collaboration' : 'Select Provider';
}
