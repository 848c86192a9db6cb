import { describe, expect, it } from 'vitest';
import { amountFilter, paymentMethodType, searchTarget } from './search';

describe('search text rule (spec 02 §5)', () => {
  it('reads all digits as an id, anything else as a reference id, blank as no search', () => {
    expect(searchTarget('12345')).toEqual({ kind: 'id', id: '12345' });
    expect(searchTarget(' 42 ')).toEqual({ kind: 'id', id: '42' });
    expect(searchTarget('ref-42')).toEqual({ kind: 'reference', reference: 'ref-42' });
    expect(searchTarget('12a')).toEqual({ kind: 'reference', reference: '12a' });
    expect(searchTarget('  ')).toEqual({ kind: 'none' });
    expect(searchTarget(undefined)).toEqual({ kind: 'none' });
  });
});

describe('payment method rule (spec 02 §5)', () => {
  it('is Phone for digits, Crypto otherwise, Auto when empty', () => {
    expect(paymentMethodType('09171234567')).toBe(1);
    expect(paymentMethodType('0xAbC123')).toBe(2);
    expect(paymentMethodType('+639171234567')).toBe(2);
    expect(paymentMethodType('')).toBe(0);
    expect(paymentMethodType(undefined)).toBe(0);
  });
});

describe('amount filters', () => {
  it('take at most 2 fraction digits', () => {
    expect(amountFilter('10')).toBe('10');
    expect(amountFilter('10.5')).toBe('10.5');
    expect(amountFilter('10.55')).toBe('10.55');
    expect(amountFilter('10.555')).toBeNull();
    expect(amountFilter('abc')).toBeNull();
    expect(amountFilter('')).toBe('');
  });
});
