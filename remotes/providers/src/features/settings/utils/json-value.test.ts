import { describe, expect, it } from 'vitest';
import { fromServer, jsonEqual, parseNumber } from './json-value';
import { numberProblem, rangeHint } from './schema';

describe('fromServer (spec 02 §5: numeric strings to numbers, "true"/"false" to booleans)', () => {
  it('converts at any depth and keeps other values', () => {
    expect(fromServer({ a: '12', b: 'true', c: 'false', d: 'x', e: ['1.5', null, { f: '-3' }], g: '' })).toEqual({
      a: 12,
      b: true,
      c: false,
      d: 'x',
      e: [1.5, null, { f: -3 }],
      g: '',
    });
    expect(fromServer(undefined)).toBeNull();
    expect(fromServer('1e5')).toBe('1e5');
  });
});

describe('jsonEqual', () => {
  it('compares deeply, ignoring key order', () => {
    expect(jsonEqual({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });
});

describe('parseNumber (0 to 20 decimals)', () => {
  it.each([
    ['0', 0],
    ['-4', -4],
    ['1.', 1],
    ['2.12345678901234567890', 2.1234567890123457],
    ['1.123456789012345678901', null],
    ['abc', null],
    ['', null],
    ['1e3', null],
  ])('%s → %s', (text, want) => {
    expect(parseNumber(text)).toBe(want);
  });
});

describe('numberProblem', () => {
  const s = { type: 'integer', minimum: 1, maximum: 1440, properties: [], nullable: false };
  it('checks whole numbers and bounds', () => {
    expect(numberProblem(60, s)).toBeNull();
    expect(numberProblem(0, s)).toBe('Enter a whole number from 1 to 1440.');
    expect(numberProblem(1.5, s)).toBe('Enter a whole number from 1 to 1440.');
    expect(numberProblem(0.4, { ...s, type: 'number', minimum: 0.5, maximum: 300 })).toBe('Enter a number from 0.5 to 300.');
    expect(numberProblem(-1, undefined)).toBeNull();
    expect(rangeHint({ ...s, maximum: undefined })).toBe('at least 1');
  });
});
