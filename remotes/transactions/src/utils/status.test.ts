import { describe, expect, it } from 'vitest';
import { callbackDelivery, statusClass, statusesLabel, statusLabel, validationResultName, validationStatusLabel } from './status';

describe('status display (spec 02 §4)', () => {
  it('classes 4 as success; 3, 2, 1 as pending; all others as error', () => {
    expect(statusClass(4)).toBe('success');
    for (const s of [3, 2, 1]) expect(statusClass(s)).toBe('pending');
    for (const s of [0, -1, -2, -3, -4, -5, -6, 300, 99]) expect(statusClass(s)).toBe('error');
    expect(statusLabel(-6)).toBe('Validation Failed');
    expect(statusLabel(77)).toBe('77');
  });

  it('names at most 3 selected statuses in the label', () => {
    expect(statusesLabel([])).toBe('All statuses');
    expect(statusesLabel([4, 3, 2])).toBe('Success, Pending, Scheduled');
    expect(statusesLabel([4, 3, 2, -1, -2])).toBe('Success, Pending, Scheduled +2');
  });

  it('reads the callback tally a/b: success only when every sent callback was delivered', () => {
    expect(callbackDelivery('2/2')).toMatchObject({ delivered: 2, total: 2, state: 'success', mark: '✓', figures: '2/2', label: 'Callbacks delivered: 2 of 2' });
    expect(callbackDelivery('1/2')).toMatchObject({ state: 'partial', figures: '1/2', label: 'Callbacks partly delivered: 1 of 2' });
    expect(callbackDelivery('0/3')).toMatchObject({ state: 'failed', mark: '✗', label: 'Callbacks not delivered: 0 of 3' });
    expect(callbackDelivery('0/0')).toMatchObject({ state: 'none', figures: '0/0', label: 'No callbacks sent' });
    // Unreadable tallies count as nothing sent rather than a success.
    for (const raw of ['', '7', 'x/y']) expect(callbackDelivery(raw)).toMatchObject({ state: 'none', figures: '0/0' });
  });

  it('names validation results and their statuses', () => {
    expect(validationResultName('31', true)).toBe('AVR-31');
    expect(validationResultName('32', false)).toBe('VR-32');
    expect([1, 0, -1, 5].map(validationStatusLabel)).toEqual(['Success', 'Pending', 'Failed', '5']);
  });
});
