import { describe, expect, it } from 'vitest';
import { amountRangeText, feeValueText, formOf, inputOf, validateFee } from './fee-form';

const valid = { ...formOf(null, 1), currencyFromId: '1', currencyToId: '1', value: '1.5' };

describe('fee form', () => {
  it('accepts a valid fee and sends it as the server takes it', () => {
    expect(validateFee(valid, true)).toEqual({});
    expect(inputOf(valid)).toEqual({
      collabId: 1, transactionType: 0, payTypeId: 0, currencyFromId: 1, currencyToId: 1, amountMin: '', amountMax: '',
      priority: 0, enabled: true, feeType: 1, value: '1.5', payer: 2,
    });
  });

  it('names every bad field', () => {
    const e = validateFee({ ...valid, collabId: '', currencyFromId: '', amountMin: '1.234', amountMax: '-1', value: '1.23456', priority: '-3' }, true);
    expect(e).toEqual({
      collabId: 'Collaboration is required.',
      currencyFromId: 'Currency from is required.',
      amountMin: 'Enter an amount of 0 or more with at most two decimals.',
      amountMax: 'Enter an amount of 0 or more with at most two decimals.',
      value: 'Enter a number of 0 or more with at most four decimals.',
      priority: 'Priority must be a whole number from 0 to 1000000.',
    });
    expect(validateFee({ ...valid, collabId: '0' }, false)).toEqual({});
    expect(validateFee({ ...valid, amountMin: '10', amountMax: '9.99' }, false).amountMax).toBe('The maximum amount must not be below the minimum amount.');
    expect(validateFee({ ...valid, amountMin: '10', amountMax: '10' }, false)).toEqual({});
    // Floats cannot tell these two apart.
    expect(validateFee({ ...valid, amountMin: '999999999999999.99', amountMax: '999999999999999.98' }, false).amountMax).toBe(
      'The maximum amount must not be below the minimum amount.',
    );
    expect(validateFee({ ...valid, value: '100.0001' }, false).value).toBe('A percentage must be at most 100.');
    expect(validateFee({ ...valid, feeType: '0', value: '0.00' }, false)).toEqual({});
    expect(validateFee({ ...valid, feeType: '0', value: '0.01' }, false).value).toBe('A fee of type None has no value.');
    expect(validateFee({ ...valid, feeType: '2', value: '150' }, false)).toEqual({});
    expect(validateFee({ ...valid, feeType: '0', value: '' }, false)).toEqual({});
    expect(inputOf({ ...valid, feeType: '0', value: '' }).value).toBe('0');
  });

  it('words fees and ranges', () => {
    expect(feeValueText({ feeType: 1, value: '1.5000', currencyFrom: 'PHP' })).toBe('1.5%');
    expect(feeValueText({ feeType: 2, value: '15.0000', currencyFrom: 'PHP' })).toBe('15.00 PHP');
    expect(feeValueText({ feeType: 0, value: '0', currencyFrom: 'PHP' })).toBe('No fee');
    // Exact: as a float, 1.005 is 1.00499… and toFixed(2) gives 1.00.
    expect(feeValueText({ feeType: 2, value: '1.0050', currencyFrom: 'PHP' })).toBe('1.01 PHP');
    const fee = { id: '1', collabId: 1, transactionType: 0, payTypeId: 0, currencyFromId: 1, currencyToId: 1, currencyFrom: 'PHP', currencyTo: 'PHP' };
    expect(formOf({ ...fee, amountMin: '', amountMax: '', priority: 0, enabled: true, feeType: 1, value: '1.5000', payer: 2 }).value).toBe('1.5');
    expect(amountRangeText('', '')).toBe('Any amount');
    expect(amountRangeText('10.00', '')).toBe('From 10.00');
    expect(amountRangeText('', '5.00')).toBe('Up to 5.00');
  });
});
