import { describe, expect, it } from 'vitest';
import { addDecimal, formatAmount, formatDecimal, formatMoney, isDecimal, subDecimal } from './money';

describe('decimal strings', () => {
  it('adds and subtracts exactly, where floats would not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(addDecimal('9007199254740993.01', '0.02')).toBe('9007199254740993.03');
    expect(subDecimal('100', '0.01')).toBe('99.99');
    expect(subDecimal('1.5', '2.25')).toBe('-0.75');
    expect(subDecimal('-3', '-3')).toBe('0');
  });

  it('formats with two decimals, half away from zero, and thousands separators', () => {
    expect(formatDecimal('1234567.895')).toBe('1,234,567.90');
    expect(formatDecimal('-1234.5')).toBe('-1,234.50');
    expect(formatDecimal('0')).toBe('0.00');
    expect(formatDecimal('-0.004')).toBe('0.00');
    expect(formatDecimal('999.995')).toBe('1,000.00');
    expect(formatMoney('1000.1', 'USD')).toBe('1,000.10 USD');
  });

  it('knows a decimal amount from anything else', () => {
    expect(isDecimal('12.50')).toBe(true);
    expect(isDecimal('-0.5')).toBe(true);
    expect(isDecimal('1e3')).toBe(false);
    expect(isDecimal('')).toBe(false);
    expect(isDecimal('abc')).toBe(false);
  });
});

describe('formatAmount', () => {
  it('formats a wire amount as money, and shows anything else as it came', () => {
    expect(formatAmount('1234.5', 'PHP')).toBe('1,234.50 PHP');
    expect(formatAmount('n/a', 'PHP')).toBe('n/a PHP');
  });
});
