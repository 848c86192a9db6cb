import { describe, expect, it } from 'vitest';
import { normalizeUser, PERMISSIONS } from './access';
import { collabChoices, collabLabels, collabsOfMerchant } from './collab-choices';
import { merchantScope } from './merchant-filter';

const ACME = { merchantId: 1, merchantName: 'Acme Games' };
const BLUE = { merchantId: 2, merchantName: 'Blue Harbor Shop' };
const COLLABS = [
  { id: 1, ...ACME, providerName: 'GoVip' },
  { id: 2, ...ACME, providerName: 'FbPay' },
  { id: 3, ...BLUE, providerName: 'GoVip' },
  { id: 4, merchantId: 3, merchantName: 'Acme Games', providerName: 'GoVip' },
];

describe('collabLabels', () => {
  it('labels by provider for others and merchant - provider for admins when they are distinct (spec 02 §2)', () => {
    const few = COLLABS.slice(0, 2);
    expect([...collabLabels(few, false).values()]).toEqual(['GoVip', 'FbPay']);
    expect([...collabLabels(few, true).values()]).toEqual(['Acme Games - GoVip', 'Acme Games - FbPay']);
  });

  it('adds the merchant to labels that would read the same, and then the collab id', () => {
    expect(Object.fromEntries(collabLabels(COLLABS, false))).toEqual({
      1: 'GoVip · Acme Games (1)',
      2: 'FbPay',
      3: 'GoVip · Blue Harbor Shop (2)',
      4: 'GoVip · Acme Games (3)',
    });
    expect(Object.fromEntries(collabLabels(COLLABS, true))).toEqual({
      1: 'Acme Games (1) - GoVip',
      2: 'Acme Games - FbPay',
      3: 'Blue Harbor Shop - GoVip',
      4: 'Acme Games (3) - GoVip',
    });
    const twins = [
      { id: 7, ...ACME, providerName: 'GoVip' },
      { id: 8, ...ACME, providerName: 'GoVip' },
    ];
    expect([...collabLabels(twins, false).values()]).toEqual(['GoVip · Acme Games (1) · collab 7', 'GoVip · Acme Games (1) · collab 8']);
  });

  it('never gives two collabs the same label', () => {
    for (const admin of [false, true]) {
      const labels = [...collabLabels(COLLABS, admin).values()];
      expect(new Set(labels).size).toBe(labels.length);
    }
  });
});

describe('the Current Merchant scope of collab pickers (spec 01 §4)', () => {
  // By permissions and scope flag, never by the role's name: an Admin is admin-wide with every permission.
  const user = (roles: string[], merchantIds: number[]) =>
    normalizeUser({ id: '1', username: 'u', roles, permissions: roles.includes('Admin') ? [...PERMISSIONS] : [], merchantIds, globalScope: roles.includes('Admin') || roles.includes('Support') });

  it('follows the Current Merchant of a user who is not an admin, when it is one of theirs', () => {
    expect(merchantScope(user(['Merchant Admin'], [1, 2]), 2)).toBe(2);
    expect(merchantScope(user(['Support'], [1, 2, 3]), 3)).toBe(3);
    expect(merchantScope(user(['Merchant Admin'], [1, 2]), 9)).toBeNull();
    expect(merchantScope(user(['Merchant Admin'], [1, 2]), null)).toBeNull();
    expect(merchantScope(user(['Admin'], [1]), 1)).toBeNull();
    expect(merchantScope(null, 1)).toBeNull();
  });

  it("offers the merchant's collabs, labelled among themselves, and keeps a chosen one of another merchant", () => {
    expect(collabChoices(COLLABS, { admin: false, merchantId: 1 })).toEqual([
      { id: 1, label: 'GoVip' },
      { id: 2, label: 'FbPay' },
    ]);
    expect(collabChoices(COLLABS, { admin: false, merchantId: null }).map((c) => c.label)).toEqual([
      'GoVip · Acme Games (1)',
      'FbPay',
      'GoVip · Blue Harbor Shop (2)',
      'GoVip · Acme Games (3)',
    ]);
    expect(collabsOfMerchant(COLLABS, 2, 1).map((c) => c.id)).toEqual([1, 3]);
    expect(collabChoices(COLLABS, { admin: false, merchantId: 2, keep: 1 })).toEqual([
      { id: 1, label: 'GoVip · Acme Games (1)' },
      { id: 3, label: 'GoVip · Blue Harbor Shop (2)' },
    ]);
  });
});
