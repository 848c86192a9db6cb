/** SettingValue is a collab setting as the console edits it. */
export type SettingValue = boolean | number | string | null;

/** SettingsValues are a collab's settings by key, converted from the server's strings. */
export type SettingsValues = Record<string, SettingValue>;

/** The collab modes (spec 01 §3). */
export const COLLAB_MODES: readonly { value: number; label: string }[] = [
  { value: 1, label: 'Default' },
  { value: 2, label: 'Always Success' },
  { value: 3, label: 'Always Failed' },
];

/** SettingSpec describes how one known setting is edited. */
export interface SettingSpec {
  key: string;
  label: string;
  kind: 'switch' | 'position' | 'mode';
  /** The direction a switch belongs to: it can be on only when that direction is supported. */
  direction?: 'in' | 'out';
}

/** The collab settings of spec 01 §3 in the order the dialogs show them (the spelling is the server's). */
export const SETTING_SPECS: readonly SettingSpec[] = [
  { key: 'IsEnabled', label: 'Enabled', kind: 'switch' },
  { key: 'IsCashInEnabled', label: 'Cash-in enabled', kind: 'switch', direction: 'in' },
  { key: 'IsCashOutEnabled', label: 'Cash-out enabled', kind: 'switch', direction: 'out' },
  { key: 'ValidateCashIn', label: 'Validate cash-in', kind: 'switch', direction: 'in' },
  { key: 'ValidateCashOut', label: 'Validate cash-out', kind: 'switch', direction: 'out' },
  { key: 'IsMerchantCallbackEnabled', label: 'Merchant callback', kind: 'switch' },
  { key: 'IsCreditingToClientsEnabled', label: 'Crediting to clients', kind: 'switch' },
  { key: 'IsWithdrawFromClientsEnabled', label: 'Withdraw from clients', kind: 'switch' },
  { key: 'ExpandByPayType', label: 'Expand by pay type', kind: 'switch' },
  { key: 'AwailableOnlyOnDirectAccess', label: 'Available only on direct access', kind: 'switch' },
  { key: 'Position', label: 'Position', kind: 'position' },
  { key: 'Mode', label: 'Mode', kind: 'mode' },
];

/** The settings of a new collab (spec 01 §3 "New collab defaults"). */
export const NEW_COLLAB_DEFAULTS: SettingsValues = {
  IsEnabled: true,
  IsCashInEnabled: true,
  IsCashOutEnabled: true,
  ValidateCashIn: true,
  ValidateCashOut: true,
  IsMerchantCallbackEnabled: true,
  IsCreditingToClientsEnabled: false,
  IsWithdrawFromClientsEnabled: false,
  ExpandByPayType: true,
  AwailableOnlyOnDirectAccess: false,
  Position: null,
  Mode: 1,
};

const NUMERIC = /^-?\d+(\.\d+)?$/;

/**
 * fromServerValue converts one setting read from the server (spec 01 §3):
 * 'true'/'false' become booleans, numeric strings numbers, '' null (no
 * value); any other string stays a string.
 */
export function fromServerValue(raw: string): SettingValue {
  const s = raw.trim();
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (s === '') return null;
  if (NUMERIC.test(s)) return Number(s);
  return raw;
}

/** toServerValue converts a setting back to the server's string. */
export function toServerValue(value: SettingValue): string {
  if (value === null) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return String(value);
}

/** fromServerSettings converts every setting of a map read from the server. */
export function fromServerSettings(map: Record<string, string>): SettingsValues {
  return Object.fromEntries(Object.entries(map).map(([k, v]) => [k, fromServerValue(v)]));
}

/** toServerSettings converts every setting back to strings. */
export function toServerSettings(values: SettingsValues): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, toServerValue(v)]));
}

/** changedSettings returns, as strings, only the settings whose value differs from the initial one. */
export function changedSettings(initial: SettingsValues, current: SettingsValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(current)) {
    if (toServerValue(v) !== toServerValue(initial[k] ?? null)) out[k] = toServerValue(v);
  }
  return out;
}

/**
 * withProviderDirections applies a provider's directions to a new collab's
 * settings (spec 01 §4): the cash-in/out enabled and validate flags follow
 * what the provider supports.
 */
export function withProviderDirections(values: SettingsValues, supportsCashIn: boolean, supportsCashOut: boolean): SettingsValues {
  return {
    ...values,
    IsCashInEnabled: supportsCashIn,
    ValidateCashIn: supportsCashIn,
    IsCashOutEnabled: supportsCashOut,
    ValidateCashOut: supportsCashOut,
  };
}
