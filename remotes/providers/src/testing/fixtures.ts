import '@paygate/devkit/testing/pointer-event';
import { http, HttpResponse } from 'msw';
import { withRemote } from '@paygate/devkit/testing';
import { GATEWAY } from '@paygate/devkit/testing/msw';
import type { CollabWire, PayTypeWire, ProviderWire } from '../features/providers/api/types';
import providersRoutes from '../routes';

/** loader serves the real providers remote and stubs the others. */
export function providersLoader() {
  return withRemote(providersRoutes);
}

/** The demo merchants of docs/contracts.md. */
export const MERCHANTS = [
  { id: 1, name: 'Acme Games', hash: 'hash-acme' },
  { id: 2, name: 'Blue Harbor Shop', hash: 'hash-blue' },
  { id: 3, name: 'Cobalt Travel', hash: 'hash-cobalt' },
];

const pt = (id: number, name: string, code: string, cashIn: boolean, cashOut: boolean): PayTypeWire => ({
  id,
  name,
  code,
  cashIn,
  cashOut,
  isCashInEnabled: cashIn,
  isCashOutEnabled: cashOut,
});

export const GCASH = pt(1, 'GCash', 'GCASH', true, true);
export const MAYA = pt(2, 'Maya', 'MAYA', true, true);
export const QRPH = pt(3, 'QR Ph', 'QRPH', true, false);
export const BANK = pt(4, 'Bank Transfer', 'BANK', false, true);

/** The demo providers (a subset is enough for the tests). */
export const PROVIDERS: ProviderWire[] = [
  { id: 1, name: 'GoVip', isEnabled: true, supportsCashIn: true, supportsCashOut: true, payTypes: [GCASH, MAYA] },
  { id: 2, name: 'QRPh', isEnabled: true, supportsCashIn: true, supportsCashOut: false, payTypes: [QRPH] },
  { id: 3, name: 'FbPay', isEnabled: true, supportsCashIn: true, supportsCashOut: true, payTypes: [GCASH, BANK] },
  { id: 19, name: 'RollingPay', isEnabled: true, supportsCashIn: true, supportsCashOut: true, payTypes: [GCASH, QRPH] },
];

/** collab builds a collab on the wire; the provider's directions come from PROVIDERS. */
export function collab(
  id: number,
  merchantId: number,
  providerId: number,
  opts: { isEnabled?: boolean; in?: boolean; out?: boolean; payTypes?: PayTypeWire[] } = {},
): CollabWire {
  const provider = PROVIDERS.find((p) => p.id === providerId)!;
  const merchant = MERCHANTS.find((m) => m.id === merchantId)!;
  return {
    id,
    isEnabled: opts.isEnabled ?? true,
    isCashInEnabled: opts.in ?? true,
    isCashOutEnabled: opts.out ?? true,
    merchant: { id: merchant.id, name: merchant.name },
    provider: {
      id: provider.id,
      name: provider.name,
      supportsCashIn: provider.supportsCashIn,
      supportsCashOut: provider.supportsCashOut,
      payTypes: opts.payTypes ?? provider.payTypes,
    },
  };
}

/** The demo collabs of docs/contracts-providers.md. */
export const COLLABS: CollabWire[] = [
  collab(1, 1, 1, { payTypes: [GCASH, MAYA] }),
  collab(2, 1, 2, { isEnabled: false, out: false }),
  collab(3, 2, 3, { out: false, payTypes: [GCASH] }),
  collab(4, 3, 19, { payTypes: [GCASH, QRPH] }),
];

/** listHandlers answers the Providers page's reads. */
export function listHandlers(opts: { collabs?: CollabWire[]; maintenance?: boolean; bare?: boolean } = {}) {
  const collabs = opts.collabs ?? COLLABS;
  return [
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS)),
    http.get(`${GATEWAY}/api/v1/providers`, () => HttpResponse.json(PROVIDERS)),
    http.get(`${GATEWAY}/api/v1/merchant-collabs`, ({ request }) => {
      const merchantId = new URL(request.url).searchParams.get('merchantId');
      const list = merchantId ? collabs.filter((c) => String(c.merchant?.id) === merchantId) : collabs;
      return HttpResponse.json(opts.bare ? list : { collabs: list, isMaintenanceModeEnabled: opts.maintenance ?? false });
    }),
  ];
}
