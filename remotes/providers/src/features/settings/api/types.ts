import type { SettingFieldJson, SettingKeyJson, SettingSchemaJson } from '@paygate/gen/gateway/v1/settings_pb';
import { fromServer, type JsonValue } from '../utils/json-value';

/** SettingSchema says what values a setting, or a field of one, takes (docs/contracts-settings.md). */
export interface SettingSchema {
  /** integer, number, boolean, string, array or object; '' when the server gave none. */
  type: string;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  items?: SettingSchema;
  properties: SettingField[];
  nullable: boolean;
}

/** SettingField is one field of an object setting. */
export interface SettingField {
  name: string;
  description: string;
  schema: SettingSchema;
}

/** SettingKey is one key of the settings list, normalized. */
export interface SettingKey {
  key: string;
  description: string;
  schema: SettingSchema | null;
  defaultValue: JsonValue;
  value: JsonValue;
  /** 0 while the default is in force. */
  version: number;
  updatedAt: string | null;
  updatedBy: string;
}

/** SettingKeyWire is a key as GET /api/v1/settings/keys writes it (unset fields may be absent or null). */
export type SettingKeyWire = { [K in keyof SettingKeyJson]?: SettingKeyJson[K] | null };

const finite = (n: unknown): number | undefined => (typeof n === 'number' && Number.isFinite(n) ? n : undefined);

/** toSchema normalizes a schema from the wire. */
export function toSchema(s: SettingSchemaJson | null | undefined): SettingSchema | null {
  if (!s) return null;
  return {
    type: s.type ?? '',
    minimum: finite(s.minimum),
    maximum: finite(s.maximum),
    maxLength: s.maxLength || undefined,
    items: toSchema(s.items) ?? undefined,
    properties: (s.properties ?? []).map((f: SettingFieldJson) => ({
      name: f.name ?? '',
      description: f.description ?? '',
      schema: toSchema(f.schema) ?? { type: '', properties: [], nullable: false },
    })),
    nullable: s.nullable ?? false,
  };
}

/** toSettingKey normalizes a key from the wire; values are converted as spec 02 §5 says. */
export function toSettingKey(w: SettingKeyWire): SettingKey {
  return {
    key: w.key ?? '',
    description: w.description ?? '',
    schema: toSchema(w.schema),
    defaultValue: fromServer(w.defaultValue),
    value: fromServer(w.value),
    version: Number(w.version ?? 0),
    updatedAt: w.updatedAt ?? null,
    updatedBy: w.updatedBy ?? '',
  };
}
