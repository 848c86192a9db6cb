import { describe, expect, it } from 'vitest';
import { EMPTY_FILTERS } from './query-state';
import { needsTotals, totalFor } from './totals';

describe('totals rule (spec 02 §5)', () => {
  it('requests totals for a collab, a date, a type, a status filter with Success, or a merchant CID', () => {
    expect(needsTotals(EMPTY_FILTERS)).toBe(false);
    expect(needsTotals({ ...EMPTY_FILTERS, selectedCollabId: 1 })).toBe(true);
    expect(needsTotals({ ...EMPTY_FILTERS, dateRange: { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z' } })).toBe(true);
    expect(needsTotals({ ...EMPTY_FILTERS, transactionTypeFilter: 1 })).toBe(true);
    expect(needsTotals({ ...EMPTY_FILTERS, transactionStatusesFilter: [3, 4] })).toBe(true);
    expect(needsTotals({ ...EMPTY_FILTERS, transactionStatusesFilter: [3, -1] })).toBe(false);
    expect(needsTotals({ ...EMPTY_FILTERS, merchantCidFilter: 'c1' })).toBe(true);
    expect(needsTotals({ ...EMPTY_FILTERS, nonceFilter: 'n1' })).toBe(false);
    // The default range the page sends is a date set too.
    expect(needsTotals(EMPTY_FILTERS, { dateSet: true })).toBe(true);
  });

  it('averages the total over the count exactly and has no summary for a missing currency', () => {
    expect(totalFor({ PHP: '300' }, 'PHP', 4)).toEqual({ total: '300', average: '75.00' });
    expect(totalFor({ PHP: '300' }, 'USD', 4)).toBeNull();
    expect(totalFor({ USD: '0' }, 'USD', 0)).toEqual({ total: '0', average: '0' });
    expect(totalFor({ PHP: '0.15' }, 'PHP', 2)?.average).toBe('0.08');
    // As a float this total is 90071992547409940 and its average was shown as 30,023,997,515,803,310.00.
    expect(totalFor({ PHP: '90071992547409930.03' }, 'PHP', 3)?.average).toBe('30023997515803310.01');
  });
});
