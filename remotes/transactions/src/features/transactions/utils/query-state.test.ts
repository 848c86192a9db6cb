import { describe, expect, it } from 'vitest';
import { EMPTY_FILTERS, parseFilters, serializeFilters, type Filters } from './query-state';

describe('query-string state (spec 02 §2)', () => {
  it('round-trips every parameter', () => {
    const f: Filters = {
      selectedCollabId: 3,
      transactionTypeFilter: 2,
      transactionStatusesFilter: [4, -1, 300],
      providerTidFilter: 'P-1',
      merchantCidFilter: 'client 7',
      nonceFilter: 'n&1',
      minAmountFilter: '10.50',
      maxAmountFilter: '99',
      currencyFilter: 'PHP',
      paymentMethodValueFilter: '0917',
      paymentIpAddressFilter: '203.0.113.9',
      dateRange: { from: '2026-03-01T00:00:00.000Z', to: '2026-03-05T23:59:59.999Z' },
      currentPage: 4,
      pageSize: 20,
    };
    const qs = serializeFilters(f).toString();
    for (const key of Object.keys(f)) expect(qs).toContain(`${key}=`);
    expect(parseFilters(new URLSearchParams(qs))).toEqual(f);
  });

  it('leaves defaults out and reads an empty query as the defaults', () => {
    expect(serializeFilters(EMPTY_FILTERS).toString()).toBe('');
    expect(parseFilters(new URLSearchParams(''))).toEqual(EMPTY_FILTERS);
  });

  it('ignores malformed values', () => {
    const f = parseFilters(new URLSearchParams('selectedCollabId=x&transactionTypeFilter=7&pageSize=7&currentPage=0&dateRange=nope&transactionStatusesFilter=4,x,-2'));
    expect(f).toEqual({ ...EMPTY_FILTERS, transactionStatusesFilter: [4, -2] });
  });
});
