import { describe, expect, it } from 'vitest';
import { netCashFlow, providerRows, statusSlices, successRate, totalVolume, type StatusCounts } from './figures';

const counts = (c: Partial<StatusCounts>): StatusCounts => ({
  total: 0,
  successful: 0,
  failed: 0,
  pending: 0,
  refunded: 0,
  validationFailed: 0,
  pspError: 0,
  cancelled: 0,
  notConfirmed: 0,
  ...c,
});

describe('doughnut rule (spec 01 §5)', () => {
  it('hides slices under 3% of the total and lists them for the legend; 3% itself is drawn', () => {
    const s = statusSlices(counts({ total: 100, successful: 80, failed: 15, pending: 3, cancelled: 2 }));
    expect(s.empty).toBe(false);
    expect(s.shown.map((x) => x.label)).toEqual(['Successful', 'Failed', 'Pending']);
    expect(s.small.map((x) => [x.label, x.value])).toEqual([['Cancelled', 2]]);
  });

  it('measures against the total, and leaves statuses with no transaction out', () => {
    const s = statusSlices(counts({ total: 1000, successful: 971, pspError: 29 }));
    expect(s.shown.map((x) => x.label)).toEqual(['Successful']);
    expect(s.small.map((x) => x.label)).toEqual(['Rolled Back']);
  });

  it('has no slice at all when the total is 0 ("No Data")', () => {
    expect(statusSlices(counts({}))).toEqual({ empty: true, shown: [], small: [] });
  });
});

describe('derived figures (spec 01 §2)', () => {
  it('success rate is successful ÷ total with two decimals, 0.00% without transactions', () => {
    expect(successRate({ successful: 1, total: 3 })).toBe('33.33%');
    expect(successRate({ successful: 2, total: 3 })).toBe('66.67%');
    expect(successRate({ successful: 5, total: 5 })).toBe('100.00%');
    expect(successRate({ successful: 0, total: 0 })).toBe('0.00%');
  });

  it('net cash flow and total volume are exact', () => {
    expect(netCashFlow('1000.10', '999.99')).toBe('0.11');
    expect(netCashFlow('0.1', '0.3')).toBe('-0.2');
    expect(totalVolume('0.1', '0.2')).toBe('0.3');
    expect(totalVolume('123456789012345.67', '0.33')).toBe('123456789012346.00');
  });

  it('sorts providers by count, most first, with their share of the total', () => {
    const rows = providerRows(
      [
        { providerId: 1, providerName: 'GoVip', count: 1 },
        { providerId: 2, providerName: 'QRPh', count: 5 },
        { providerId: 3, providerName: 'FbPay', count: 2 },
      ],
      8,
    );
    expect(rows.map((r) => [r.providerName, r.count, r.percentage])).toEqual([
      ['QRPh', 5, '62.50%'],
      ['FbPay', 2, '25.00%'],
      ['GoVip', 1, '12.50%'],
    ]);
  });
});
