import { describe, expect, it } from 'vitest';
import { failureAdvice } from './error-causes';
import { canDelete, canDownload, exportTypeName, fileStatus, fileTypeName, isProcessing } from './file-status';

describe('file status (spec 02 §4)', () => {
  it.each([
    [0, 'Scheduled', 'info', true],
    [1, 'In Progress', 'warning', true],
    [2, 'Success', 'success', false],
    [-1, 'Failed', 'danger', false],
    [-2, 'Cancelled', 'danger', false],
    [-3, 'Deleted', 'danger', false],
    [7, 'Unknown', 'neutral', false],
  ])('%i is %s (%s)', (code, label, tone, processing) => {
    expect(fileStatus(code)).toEqual({ label, tone });
    expect(isProcessing(code)).toBe(processing);
  });

  it('allows download and delete of a Success file only', () => {
    expect([0, 1, 2, -1, -2, -3].filter(canDownload)).toEqual([2]);
    expect([0, 1, 2, -1, -2, -3].filter(canDelete)).toEqual([2]);
  });
});

describe('type names (spec 02 §3)', () => {
  it('names file types 0 CSV, 1 Excel, 2 PDF', () => {
    expect([0, 1, 2, 3].map(fileTypeName)).toEqual(['CSV', 'Excel', 'PDF', 'Unknown']);
  });

  it('names export types 1 Transactions, 2 Statistics, else from the server list, else Unknown', () => {
    const types = [
      { type: 1, name: 'All transactions' },
      { type: 3, name: 'Transaction logs' },
    ];
    expect(exportTypeName(1, types)).toBe('Transactions');
    expect(exportTypeName(2, types)).toBe('Statistics');
    expect(exportTypeName(3, types)).toBe('Transaction logs');
    expect(exportTypeName(4, types)).toBe('Unknown');
    expect(exportTypeName(3)).toBe('Unknown');
  });
});

describe('failure causes (spec 02 "Files")', () => {
  it.each([
    ['Export timed out after 300 s', 'timeout'],
    ['context deadline exceeded', 'timeout'],
    ['Timeout while reading transactions', 'timeout'],
    ['permission denied for collab 4', 'permission'],
    ['Forbidden', 'permission'],
    ['out of memory while writing the workbook', 'memory'],
    ['The file is too large', 'memory'],
    ['disk quota exceeded', 'generic'],
    ['', 'generic'],
  ])('%s reads as %s', (message, kind) => {
    const advice = failureAdvice(message);
    expect(advice.kind).toBe(kind);
    expect(advice.causes.length).toBeGreaterThan(0);
    expect(advice.advice).not.toBe('');
  });
});
