import { describe, expect, it } from 'vitest';
import { EMPTY_FILTERS, levelLabel, merchantFilterInvalid, reviewProblem, reviewStatusLabel, transactionIdInvalid } from './fraud';
import { defaultFraudRange, fraudRange } from './date-range';

describe('fraud levels and statuses (spec 02 §3, §4)', () => {
  it('names levels 1 to 4 and everything else None', () => {
    expect([0, 1, 2, 3, 4, 5, -1].map(levelLabel)).toEqual(['None', 'Low', 'Medium', 'High', 'Critical', 'None', 'None']);
  });
  it('names the three review statuses', () => {
    expect([0, 1, 2, 3].map(reviewStatusLabel)).toEqual(['Not Reviewed', 'Confirmed', 'Denied', 'Unknown']);
  });
});

describe('reviewProblem (spec 02 §4 save rule)', () => {
  const saved = { reviewStatus: 0, notes: 'seen' };
  it('needs a changed status or note', () => {
    expect(reviewProblem(saved, { status: 0, notes: 'seen', cancelCallbacks: true })).toBe('Change the status or the note to save.');
    expect(reviewProblem(saved, { status: 0, notes: ' seen ', cancelCallbacks: false })).not.toBeNull();
    expect(reviewProblem(saved, { status: 1, notes: 'seen', cancelCallbacks: false })).toBeNull();
    expect(reviewProblem(saved, { status: 0, notes: 'more', cancelCallbacks: false })).toBeNull();
  });
  it('needs a note to deny', () => {
    expect(reviewProblem(saved, { status: 2, notes: '  ', cancelCallbacks: false })).toBe('A note is required to deny a fraud.');
    expect(reviewProblem(saved, { status: 2, notes: 'ok', cancelCallbacks: false })).toBeNull();
  });
});

describe('fraud filters (spec 02 §5)', () => {
  it('marks the merchant filter invalid when an admin gives a merchant client id without a merchant', () => {
    expect(merchantFilterInvalid({ ...EMPTY_FILTERS, merchantClientId: 'c-1' }, true)).toBe(true);
    expect(merchantFilterInvalid({ ...EMPTY_FILTERS, merchantClientId: 'c-1', merchantId: 2 }, true)).toBe(false);
    expect(merchantFilterInvalid({ ...EMPTY_FILTERS, merchantClientId: 'c-1' }, false)).toBe(false);
    expect(merchantFilterInvalid({ ...EMPTY_FILTERS, merchantClientId: '  ' }, true)).toBe(false);
  });
  it('takes digits only as a transaction id', () => {
    expect(transactionIdInvalid({ ...EMPTY_FILTERS, transactionId: '12a' })).toBe(true);
    expect(transactionIdInvalid({ ...EMPTY_FILTERS, transactionId: '123' })).toBe(false);
  });
});

describe('fraud date range (spec 02 §5)', () => {
  const now = new Date('2026-11-20T10:30:00Z');
  it('defaults to the last 7 days until one hour ahead', () => {
    expect(defaultFraudRange(now, 'UTC')).toEqual({ from: '2026-11-13T00:00:00.000Z', to: '2026-11-20T11:30:00.000Z' });
  });
  it('snaps the start to 00:00:00.000 and the end to 23:59:59.999 in the zone', () => {
    expect(fraudRange('2026-11-01', '2026-11-03', 'UTC', now)).toEqual({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-03T23:59:59.999Z' });
    expect(fraudRange('2026-11-01', '2026-11-03', 'Etc/GMT-8', now)).toEqual({ from: '2026-10-31T16:00:00.000Z', to: '2026-11-03T15:59:59.999Z' });
  });
  it('ends a range without an end with its start day', () => {
    expect(fraudRange('2026-11-05', '', 'UTC', now)).toEqual({ from: '2026-11-05T00:00:00.000Z', to: '2026-11-05T23:59:59.999Z' });
  });
  it('keeps days from 2025-01-01 to today, and swaps reversed days', () => {
    expect(fraudRange('2024-06-01', '2030-01-01', 'UTC', now)).toEqual({ from: '2025-01-01T00:00:00.000Z', to: '2026-11-20T23:59:59.999Z' });
    expect(fraudRange('2026-11-03', '2026-11-01', 'UTC', now)).toEqual({ from: '2026-11-01T00:00:00.000Z', to: '2026-11-03T23:59:59.999Z' });
  });
  it('gives the default range without a start', () => {
    expect(fraudRange('', '2026-11-03', 'UTC', now)).toEqual(defaultFraudRange(now, 'UTC'));
  });
});
