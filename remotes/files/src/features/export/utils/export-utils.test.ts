import { describe, expect, it } from 'vitest';
import { activeFilters, cleanFilter, removeFilter } from './active-filters';
import { mergeColumns, moveColumn, rememberColumns, rememberedColumns, toExportColumns, initialColumns } from './column-settings';
import { pdfTooWide } from './file-types';

const AVAILABLE = [
  { field: 'id', name: 'ID' },
  { field: 'amount', name: 'Amount' },
  { field: 'currency', name: 'Currency' },
];

describe('active filters', () => {
  it('lists set filters only, with the page labels or the values', () => {
    const scope = { collabId: 5, filter: cleanFilter({ type: 2, statuses: [], nonce: 'n-1', from: '2026-01-01T00:00:00Z', minAmount: '', paymentMethodType: 0 }) };
    expect(activeFilters(scope, { type: 'Cash out' }, 'Etc/GMT-8')).toEqual([
      { key: 'collab', title: 'Collab', value: 'Collab 5' },
      { key: 'type', title: 'Transaction Type', value: 'Cash out' },
      { key: 'dateRange', title: 'Date Range', value: 'From Jan 1, 2026, 08:00:00 (UTC+8)' },
      { key: 'nonce', title: 'Nonce', value: 'n-1' },
    ]);
    expect(activeFilters({ collabId: null, filter: {} })).toEqual([]);
  });

  it('removes the date range whole and the payment method with its type', () => {
    const scope = { collabId: 1, filter: { from: 'a', to: 'b', paymentMethodValue: 'x', paymentMethodType: 2, currency: 'PHP' } };
    expect(removeFilter(scope, 'dateRange').filter).toEqual({ paymentMethodValue: 'x', paymentMethodType: 2, currency: 'PHP' });
    expect(removeFilter(scope, 'paymentMethodValue').filter).toEqual({ from: 'a', to: 'b', currency: 'PHP' });
    expect(removeFilter(scope, 'collab')).toEqual({ ...scope, collabId: null });
  });
});

describe('column settings', () => {
  it('moves columns within bounds', () => {
    const cols = initialColumns(AVAILABLE);
    expect(moveColumn(cols, 1, -1).map((c) => c.field)).toEqual(['amount', 'id', 'currency']);
    expect(moveColumn(cols, 1, 1).map((c) => c.field)).toEqual(['id', 'currency', 'amount']);
    expect(moveColumn(cols, 0, -1).map((c) => c.field)).toEqual(['id', 'amount', 'currency']);
    expect(moveColumn(cols, 2, 1).map((c) => c.field)).toEqual(['id', 'amount', 'currency']);
  });

  it('builds the request columns from the selected ones, blank headers taking the default', () => {
    const cols = initialColumns(AVAILABLE).map((c) => (c.field === 'amount' ? { ...c, name: '  ' } : c.field === 'id' ? { ...c, selected: false } : c));
    expect(toExportColumns(cols)).toEqual({ columns: { amount: 'Amount', currency: 'Currency' }, columnOrder: ['amount', 'currency'] });
  });

  it('remembers per export type and merges with what the server offers now', () => {
    rememberColumns(1, [
      { field: 'currency', defaultName: 'Currency', name: 'Ccy', selected: true },
      { field: 'gone', defaultName: 'Gone', name: 'Gone', selected: true },
      { field: 'id', defaultName: 'ID', name: 'ID', selected: false },
    ]);
    expect(rememberedColumns(3)).toBeUndefined();
    expect(mergeColumns(AVAILABLE, rememberedColumns(1))).toEqual([
      { field: 'currency', defaultName: 'Currency', name: 'Ccy', selected: true },
      { field: 'id', defaultName: 'ID', name: 'ID', selected: false },
      { field: 'amount', defaultName: 'Amount', name: 'Amount', selected: true },
    ]);
    expect(JSON.parse(localStorage.getItem('exportColumns') ?? '{}')).toHaveProperty('1');
  });

  it('ignores a damaged stored value', () => {
    localStorage.setItem('exportColumns', '{not json');
    expect(rememberedColumns(1)).toBeUndefined();
    localStorage.setItem('exportColumns', JSON.stringify({ 1: [{ field: 3 }] }));
    expect(mergeColumns(AVAILABLE, rememberedColumns(1))).toEqual(initialColumns(AVAILABLE));
  });

  it('warns for PDF above 5 columns only', () => {
    expect(pdfTooWide(2, 5)).toBe(false);
    expect(pdfTooWide(2, 6)).toBe(true);
    expect(pdfTooWide(0, 9)).toBe(false);
    expect(pdfTooWide(1, 9)).toBe(false);
  });
});
