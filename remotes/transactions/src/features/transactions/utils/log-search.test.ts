import { describe, expect, it } from 'vitest';
import { defaultLogSearch, logSearchFromTransaction, logSearchRequest } from './log-search';

const NOW = new Date('2026-11-22T07:30:00Z');
const UTC8 = 'Etc/GMT-8';

describe('log search form (spec 02 §5, §9)', () => {
  it('starts one hour before now in the zone with 15 minutes', () => {
    expect(defaultLogSearch(NOW, UTC8)).toMatchObject({ start: '2026-11-22T14:30', duration: 15 });
  });

  it('builds a zone-less window with the zone offset', () => {
    const r = logSearchRequest({ ...defaultLogSearch(NOW, UTC8), transactionType: '1', searchTerm: ' PG-1 ', currency: 'php', amount: '10.5' }, UTC8, NOW);
    expect(r).toEqual({
      ok: true,
      request: {
        transactionType: 1,
        fromDate: '2026-11-22T14:30:00',
        toDate: '2026-11-22T14:45:00',
        searchTerm: 'PG-1',
        amount: '10.5',
        currency: 'PHP',
        merchantClientId: undefined,
        timezoneOffsetMinutes: 480,
      },
    });
  });

  it('refuses a missing type or term, a bad amount, and a start after the end of the next day', () => {
    const base = { ...defaultLogSearch(NOW, 'UTC'), transactionType: '2', searchTerm: 'x' };
    expect(logSearchRequest({ ...base, transactionType: '' }, 'UTC', NOW).ok).toBe(false);
    expect(logSearchRequest({ ...base, searchTerm: ' ' }, 'UTC', NOW).ok).toBe(false);
    expect(logSearchRequest({ ...base, amount: '0.001' }, 'UTC', NOW).ok).toBe(false);
    expect(logSearchRequest({ ...base, amount: '0.00' }, 'UTC', NOW).ok).toBe(false);
    expect(logSearchRequest({ ...base, start: '2026-11-23T23:59' }, 'UTC', NOW).ok).toBe(true);
    expect(logSearchRequest({ ...base, start: '2026-11-24T00:00' }, 'UTC', NOW).ok).toBe(false);
  });
  it('prefills from a row: type, reference as term, 5 minutes before receipt in the zone, amount, currency and client id', () => {
    const row = { transactionType: 2, transactionReferenceId: 'PG-77', createdUtc: '2026-11-21T10:03:00Z', amount: '150.00', currency: 'php', merchantClientId: 'client-7' };
    const form = logSearchFromTransaction(row, UTC8, NOW);
    expect(form).toEqual({ transactionType: '2', searchTerm: 'PG-77', start: '2026-11-21T17:58', duration: 15, amount: '150.00', currency: 'PHP', merchantClientId: 'client-7' });
    const r = logSearchRequest(form, UTC8, NOW);
    expect(r).toMatchObject({ ok: true, request: { fromDate: '2026-11-21T17:58:00', toDate: '2026-11-21T18:13:00', merchantClientId: 'client-7', amount: '150.00' } });
    // A zero amount would make the form invalid, so it is left out.
    expect(logSearchFromTransaction({ ...row, amount: '0.00' }, 'UTC', NOW).amount).toBe('');
  });
});
