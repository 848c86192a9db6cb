import { describe, expect, it } from 'vitest';
import { toCollab, type Collab } from '../api/types';
import { merchantsOf, searchCollabs, sortCollabs } from './collab-list';

const MERCHANT_IDS: Record<string, number> = { 'Acme Games': 1, 'Blue Harbor Shop': 2, 'Cobalt Travel': 3 };

function c(id: number, provider: string, merchant: string, o: { enabled?: boolean; in?: boolean; out?: boolean } = {}): Collab {
  return toCollab({
    id,
    isEnabled: o.enabled ?? true,
    isCashInEnabled: o.in ?? true,
    isCashOutEnabled: o.out ?? true,
    merchant: { id: MERCHANT_IDS[merchant] ?? 0, name: merchant },
    provider: { id, name: provider, supportsCashIn: true, supportsCashOut: true, payTypes: [] },
  });
}

// Enabled: GoVip/Cobalt (success), FbPay/Acme (warning), Zeta/Blue (no direction: secondary).
// Disabled: Alpha/Blue, QRPh/Acme.
const LIST = [
  c(1, 'GoVip', 'Cobalt Travel'),
  c(2, 'Alpha', 'Blue Harbor Shop', { enabled: false }),
  c(3, 'FbPay', 'Acme Games', { out: false }),
  c(4, 'QRPh', 'Acme Games', { enabled: false }),
  c(5, 'Zeta', 'Blue Harbor Shop', { in: false, out: false }),
];
const order = (list: Collab[]) => list.map((x) => x.provider.name);

describe('sortCollabs: enabled collabs always first (spec 01 §2)', () => {
  it('by provider, ascending and descending', () => {
    expect(order(sortCollabs(LIST, 'provider', 'asc'))).toEqual(['FbPay', 'GoVip', 'Zeta', 'Alpha', 'QRPh']);
    expect(order(sortCollabs(LIST, 'provider', 'desc'))).toEqual(['Zeta', 'GoVip', 'FbPay', 'QRPh', 'Alpha']);
  });

  it('by merchant, ascending and descending (ties by provider)', () => {
    expect(order(sortCollabs(LIST, 'merchant', 'asc'))).toEqual(['FbPay', 'Zeta', 'GoVip', 'QRPh', 'Alpha']);
    expect(order(sortCollabs(LIST, 'merchant', 'desc'))).toEqual(['GoVip', 'Zeta', 'FbPay', 'Alpha', 'QRPh']);
  });

  it('by status (healthy first when ascending), ascending and descending', () => {
    expect(order(sortCollabs(LIST, 'status', 'asc'))).toEqual(['GoVip', 'FbPay', 'Zeta', 'Alpha', 'QRPh']);
    expect(order(sortCollabs(LIST, 'status', 'desc'))).toEqual(['Zeta', 'FbPay', 'GoVip', 'Alpha', 'QRPh']);
  });

  it('does not change the list it sorts', () => {
    const before = order(LIST);
    sortCollabs(LIST, 'provider', 'desc');
    expect(order(LIST)).toEqual(before);
  });
});

describe('searchCollabs', () => {
  it('matches the provider name, case-insensitively, ignoring surrounding spaces', () => {
    expect(order(searchCollabs(LIST, '  pay '))).toEqual(['FbPay']);
    expect(order(searchCollabs(LIST, 'GO'))).toEqual(['GoVip']);
  });

  it('does not match merchant names', () => {
    expect(searchCollabs(LIST, 'Acme')).toEqual([]);
  });

  it('keeps everything for an empty search', () => {
    expect(searchCollabs(LIST, ' ')).toHaveLength(5);
  });
});

describe('merchantsOf', () => {
  it('lists the distinct merchants by name', () => {
    expect(merchantsOf(LIST).map((m) => m.name)).toEqual(['Acme Games', 'Blue Harbor Shop', 'Cobalt Travel']);
  });
});
