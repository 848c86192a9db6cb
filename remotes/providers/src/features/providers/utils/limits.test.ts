import { describe, expect, it } from 'vitest';
import type { Amounts } from '../api/types';
import { changedAmounts, isChanged, isValidAmount, normalizeAmount, visibleAmountKeys } from './limits';

const INITIAL: Amounts = {
  minimalDepositAmount: '100.00',
  maximalDepositAmount: '',
  minimalWithdrawAmount: '200.00',
  maximalWithdrawAmount: '5000.00',
};

describe('limit amounts', () => {
  it('normalizes to two decimals and keeps "" as no limit', () => {
    expect(normalizeAmount('100')).toBe('100.00');
    expect(normalizeAmount(' 99.5 ')).toBe('99.50');
    expect(normalizeAmount('')).toBe('');
    // Exactly: floats give 1.00 and 12345678901234568.00.
    expect(normalizeAmount('1.005')).toBe('1.01');
    expect(normalizeAmount('12345678901234567.89')).toBe('12345678901234567.89');
  });

  it('accepts 0 or more with at most two decimals', () => {
    expect(isValidAmount('')).toBe(true);
    expect(isValidAmount('0')).toBe(true);
    expect(isValidAmount('1500.25')).toBe(true);
    expect(isValidAmount('-1')).toBe(false);
    expect(isValidAmount('1.234')).toBe(false);
    expect(isValidAmount('abc')).toBe(false);
  });

  it('sees no change in a different spelling of the same amount', () => {
    expect(isChanged('100.00', '100')).toBe(false);
    expect(isChanged('100.00', '100.5')).toBe(true);
    expect(isChanged('', '0')).toBe(true);
  });
});

describe('changedAmounts (spec 01 §5: only values that changed)', () => {
  it('returns nothing when nothing changed', () => {
    expect(changedAmounts(INITIAL, { ...INITIAL, minimalDepositAmount: '100' })).toEqual({});
  });

  it('returns only the changed amounts, normalized, "" for a cleared one', () => {
    expect(changedAmounts(INITIAL, { ...INITIAL, maximalDepositAmount: '2500', maximalWithdrawAmount: '' })).toEqual({
      maximalDepositAmount: '2500.00',
      maximalWithdrawAmount: '',
    });
  });

  it('never returns a field that is not shown', () => {
    const current = { ...INITIAL, maximalDepositAmount: '2500', minimalWithdrawAmount: '1' };
    expect(changedAmounts(INITIAL, current, visibleAmountKeys(false, true))).toEqual({ minimalWithdrawAmount: '1.00' });
  });
});

describe('visibleAmountKeys', () => {
  it('shows deposit fields only with deposits and withdrawal fields only with withdrawals', () => {
    expect(visibleAmountKeys(true, true)).toEqual(['minimalDepositAmount', 'maximalDepositAmount', 'minimalWithdrawAmount', 'maximalWithdrawAmount']);
    expect(visibleAmountKeys(true, false)).toEqual(['minimalDepositAmount', 'maximalDepositAmount']);
    expect(visibleAmountKeys(false, true)).toEqual(['minimalWithdrawAmount', 'maximalWithdrawAmount']);
    expect(visibleAmountKeys(false, false)).toEqual([]);
  });
});
