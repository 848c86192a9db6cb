import { describe, expect, it } from 'vitest';
import { reconcileMerchantFilter } from './merchant-filter';

describe('reconcileMerchantFilter (spec 01 §4)', () => {
  it('keeps a stored choice that is among the merchants', () => {
    expect(reconcileMerchantFilter(2, [1, 2, 3])).toBe(2);
    expect(reconcileMerchantFilter(1, [1])).toBe(1);
  });
  it('clears the choice when the user has no merchants', () => {
    expect(reconcileMerchantFilter(4, [])).toBeNull();
    expect(reconcileMerchantFilter(null, [])).toBeNull();
  });
  it('sets the only merchant when there is one', () => {
    expect(reconcileMerchantFilter(9, [5])).toBe(5);
    expect(reconcileMerchantFilter(null, [5])).toBe(5);
  });
  it('otherwise picks the first', () => {
    expect(reconcileMerchantFilter(9, [3, 1, 2])).toBe(3);
    expect(reconcileMerchantFilter(null, [3, 1, 2])).toBe(3);
  });
});
