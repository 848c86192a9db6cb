import { describe, expect, it } from 'vitest';
import {
  addDecimal,
  compareDecimal,
  divideDecimal,
  formatAmount,
  formatDecimal,
  formatMoney,
  isDecimal,
  negateDecimal,
  roundDecimal,
  subDecimal,
  sumDecimals,
  trimDecimal,
} from './money';

describe('decimal strings', () => {
  it('adds and subtracts exactly, where floats would not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
    expect(addDecimal('9007199254740993.01', '0.02')).toBe('9007199254740993.03');
    expect(subDecimal('100', '0.01')).toBe('99.99');
    expect(subDecimal('1.5', '2.25')).toBe('-0.75');
    expect(subDecimal('-3', '-3')).toBe('0');
  });

  it('sums many amounts exactly at the largest scale among them', () => {
    expect(sumDecimals([])).toBe('0');
    expect(sumDecimals(['0.1', '0.2', '0.3'])).toBe('0.6');
    expect(sumDecimals(Array.from({ length: 10 }, () => '0.1'))).toBe('1.0');
    expect(sumDecimals(['1', '0.25', '-0.125', '7.5'])).toBe('8.625');
    // Beyond 2^53 (9007199254740992): a float sum would lose the last digits.
    expect(String(Number('9007199254740993') + 1)).toBe('9007199254740992');
    expect(sumDecimals(['9007199254740993', '1', '0.01'])).toBe('9007199254740994.01');
    expect(sumDecimals(['123456789012345678901234567890.99', '0.01'])).toBe('123456789012345678901234567891.00');
    expect(sumDecimals(['-250.50', '100', '150.5'])).toBe('0.00');
  });

  it('negates and compares exactly, whatever the scales', () => {
    expect(negateDecimal('12.50')).toBe('-12.50');
    expect(negateDecimal('-0.5')).toBe('0.5');
    expect(negateDecimal('0')).toBe('0');
    expect(compareDecimal('1.5', '1.50')).toBe(0);
    expect(compareDecimal('0.3', addDecimal('0.1', '0.2'))).toBe(0);
    expect(compareDecimal('-1', '0.001')).toBe(-1);
    expect(compareDecimal('100', '99.999')).toBe(1);
    // Two amounts a float cannot tell apart.
    expect(Number('999999999999999.99')).toBe(Number('999999999999999.98'));
    expect(compareDecimal('999999999999999.99', '999999999999999.98')).toBe(1);
  });

  it('rounds half away from zero to a number of digits', () => {
    expect((1.005).toFixed(2)).toBe('1.00');
    expect(roundDecimal('1.005', 2)).toBe('1.01');
    expect(roundDecimal('-1.005', 2)).toBe('-1.01');
    expect(roundDecimal('7', 2)).toBe('7.00');
    expect(roundDecimal('.5', 2)).toBe('0.50');
    expect(roundDecimal('2.5', 0)).toBe('3');
    expect(roundDecimal('-0.004', 2)).toBe('0.00');
    expect(roundDecimal('1.23456', 4)).toBe('1.2346');
    expect(() => roundDecimal('1', -1)).toThrow();
  });

  it('divides by a whole number, rounded half away from zero', () => {
    expect(divideDecimal('300', 4, 2)).toBe('75.00');
    expect(divideDecimal('1', 3, 2)).toBe('0.33');
    expect(divideDecimal('2', 3, 2)).toBe('0.67');
    // 0.15 / 2 is 0.07499999… as floats.
    expect((0.15 / 2).toFixed(2)).toBe('0.07');
    expect(divideDecimal('0.15', 2, 2)).toBe('0.08');
    expect(divideDecimal('-0.15', 2, 2)).toBe('-0.08');
    expect(divideDecimal('0.15', -2, 2)).toBe('-0.08');
    expect(divideDecimal('18014398509481986.00', 2n, 2)).toBe('9007199254740993.00');
    expect(() => divideDecimal('1', 0, 2)).toThrow();
    expect(() => divideDecimal('1', 1.5, 2)).toThrow();
  });

  it('trims the zeros that end a fraction', () => {
    expect(trimDecimal('1.5000')).toBe('1.5');
    expect(trimDecimal('15.0000')).toBe('15');
    expect(trimDecimal('100')).toBe('100');
    expect(trimDecimal('-0.0')).toBe('0');
    expect(trimDecimal('0.0100')).toBe('0.01');
  });

  it('formats with two decimals, half away from zero, and thousands separators', () => {
    expect(formatDecimal('1234567.895')).toBe('1,234,567.90');
    expect(formatDecimal('-1234.5')).toBe('-1,234.50');
    expect(formatDecimal('0')).toBe('0.00');
    expect(formatDecimal('-0.004')).toBe('0.00');
    expect(formatDecimal('999.995')).toBe('1,000.00');
    expect(formatDecimal('123456789012345678901.005')).toBe('123,456,789,012,345,678,901.01');
    expect(formatMoney('1000.1', 'USD')).toBe('1,000.10 USD');
  });

  it("formats with a currency's own digits after the point", () => {
    expect(formatMoney('1234.5', 'JPY', 0)).toBe('1,235 JPY');
    expect(formatMoney('-1234.4', 'JPY', 0)).toBe('-1,234 JPY');
    expect(formatMoney('1234.5675', 'KWD', 3)).toBe('1,234.568 KWD');
    expect(formatMoney('0.5', 'BTC', 8)).toBe('0.50000000 BTC');
    expect(formatAmount('1000', 'JPY', 0)).toBe('1,000 JPY');
  });

  it('knows a decimal amount from anything else', () => {
    expect(isDecimal('12.50')).toBe(true);
    expect(isDecimal('-0.5')).toBe(true);
    expect(isDecimal('1e3')).toBe(false);
    expect(isDecimal('')).toBe(false);
    expect(isDecimal('abc')).toBe(false);
    expect(isDecimal('1,000')).toBe(false);
    expect(() => addDecimal('1e3', '1')).toThrow('not a decimal amount');
  });
});

describe('formatAmount', () => {
  it('formats a wire amount as money, and shows anything else as it came', () => {
    expect(formatAmount('1234.5', 'PHP')).toBe('1,234.50 PHP');
    expect(formatAmount('n/a', 'PHP')).toBe('n/a PHP');
  });
});
