import { describe, expect, it } from 'vitest';
import { statusClass, statusesLabel, statusLabel } from './status';

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
});
