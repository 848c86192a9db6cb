import '@paygate/devkit/testing/pointer-event';
import { http, HttpResponse } from 'msw';
import { SCREENS, type RemoteManifest } from '@paygate/sdk';
import { withRemote } from '@paygate/devkit/testing';
import { GATEWAY } from '@paygate/devkit/testing/msw';
import type { SettingKeyWire } from '../features/settings/api/types';
import { SettingsPage } from '../features/settings/components/settings-page';

/** settingsLoader serves the Settings page from the remote the route table gives /settings to, and stubs the others. */
export function settingsLoader() {
  const manifest: RemoteManifest = { name: SCREENS.settings.remote, routes: [{ path: SCREENS.settings.path, Component: SettingsPage }] };
  return withRemote(manifest);
}

const int = (minimum: number, maximum?: number) => ({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }) });

/** FRAUD is the FraudDetection key's value as the server stores it by default. */
export const FRAUD = {
  velocityMaxPayments: 10,
  velocityWindowMinutes: 60,
  amountSpikeFactor: 5,
  amountSpikeMinHistory: 3,
  failuresBeforeSuccess: 3,
  failuresWindowMinutes: 60,
  sharedIdentityMinClients: 4,
  sharedIdentityWindowMinutes: 1440,
};

/**
 * SETTING_KEYS is a realistic answer of GET /api/v1/settings/keys: the
 * gateway's keys with their schemas, and two free-form keys (no schema) with
 * a list, null and values written as strings, which the console converts.
 */
export const SETTING_KEYS: SettingKeyWire[] = [
  {
    key: 'BalanceCacheSeconds',
    description: 'How long a provider balance is reused.',
    schema: { ...int(0, 3600), properties: [] },
    defaultValue: 15,
    value: 15,
    version: '0',
  },
  {
    key: 'FraudDetection',
    description: 'Thresholds of the fraud rules.',
    schema: {
      type: 'object',
      properties: [
        { name: 'velocityMaxPayments', description: 'Payments within the window that raise a fraud.', schema: int(2) },
        { name: 'velocityWindowMinutes', description: 'The window, in minutes.', schema: int(1, 1440) },
        { name: 'amountSpikeFactor', description: 'Times the average amount.', schema: { type: 'number', minimum: 1.5, maximum: 1000 } },
        { name: 'amountSpikeMinHistory', description: '', schema: int(1, 1000) },
        { name: 'failuresBeforeSuccess', description: '', schema: int(1, 100) },
        { name: 'failuresWindowMinutes', description: '', schema: int(1, 1440) },
        { name: 'sharedIdentityMinClients', description: '', schema: int(2, 1000) },
        { name: 'sharedIdentityWindowMinutes', description: '', schema: int(1, 10080) },
      ],
    },
    defaultValue: FRAUD,
    value: FRAUD,
    version: '0',
  },
  {
    key: 'PollingIntervalSeconds',
    description: 'How often the polling jobs look for transactions due.',
    schema: { type: 'number', minimum: 0.5, maximum: 300 },
    defaultValue: 2,
    value: 2,
    version: '3',
    updatedBy: 'admin',
    updatedAt: '2026-03-10T09:00:00Z',
  },
  { key: 'LegacyFlags', description: 'Free-form flags.', schema: null, defaultValue: null, value: { enabled: 'true', limit: '12.5', tags: ['a'], note: null }, version: '1' },
  { key: 'Nothing', description: 'A key without a value.', defaultValue: null, value: null, version: '0' },
];

/** settingKeysHandler answers the settings list. */
export const settingKeysHandler = (keys: SettingKeyWire[] = SETTING_KEYS) => http.get(`${GATEWAY}/api/v1/settings/keys`, () => HttpResponse.json(keys));

/** settingHandler answers GET /api/v1/settings/{key} from values (the listed value by default). */
export const settingHandler = (values: Record<string, unknown> = Object.fromEntries(SETTING_KEYS.map((k) => [k.key, k.value]))) =>
  http.get(`${GATEWAY}/api/v1/settings/:key`, ({ params }) => {
    const key = String(params.key);
    if (!(key in values)) return HttpResponse.json({ code: 'not_found', message: `There is no setting named "${key}".` }, { status: 404 });
    return HttpResponse.json(values[key] as never);
  });
