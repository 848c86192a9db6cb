import { describe, expect, it } from 'vitest';
import { formatAmount, preview, totals } from './balances';

describe('balances arithmetic and previews (spec 02 §9)', () => {
  it('sums per currency exactly and shows 2 decimals', () => {
    expect(
      totals([
        { amount: '250000.00', currency: 'PHP' },
        { amount: '98000.50', currency: 'PHP' },
        { amount: '0.1', currency: 'PHP' },
        { amount: '0.2', currency: 'PHP' },
        { amount: '', currency: 'PHP' },
        { amount: '15000', currency: 'USDT' },
      ]),
    ).toEqual([
      { currency: 'PHP', amount: '348,000.80', count: 4 },
      { currency: 'USDT', amount: '15,000.00', count: 1 },
    ]);
  });

  it('sums beyond the precision of floats', () => {
    expect(totals([{ amount: '9007199254740993.01', currency: 'USD' }, { amount: '0.02', currency: 'USD' }])).toEqual([
      { currency: 'USD', amount: '9,007,199,254,740,993.03', count: 2 },
    ]);
  });

  it("shows a missing amount as '-'", () => {
    expect(formatAmount('')).toBe('-');
    expect(formatAmount('1234.565')).toBe('1,234.57');
    expect(formatAmount('n/a')).toBe('-');
  });

  it('previews arrays of 5 or fewer with up to 3 items and cuts strings at 10 characters', () => {
    expect(preview('abcdefghijklmno')).toBe('"abcdefghij…"');
    expect(preview([1, 2, 3, 4, 5])).toBe('[1, 2, 3, … 2 more]');
    expect(preview([1, 2])).toBe('[1, 2]');
    expect(preview([1, 2, 3, 4, 5, 6])).toBe('Array(6)');
    expect(preview({ a: 1, b: 2 })).toBe('{2 keys}');
  });
});
