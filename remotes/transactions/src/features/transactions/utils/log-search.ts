import { compareDecimal, parseTimestamp, timezoneByValue } from '@paygate/sdk';

/** isLogAmount: a decimal of at least 0.01 with at most 2 fraction digits (spec 02 §9). */
const isLogAmount = (s: string) => /^\d+(\.\d{1,2})?$/.test(s) && compareDecimal(s, '0.01') >= 0;

/** The durations of the log search window in minutes (spec 02 §9); 15 is the default. */
export const DURATIONS = [15, 30, 60] as const;

/** LogSearchForm is the Search in Logs form as typed. */
export interface LogSearchForm {
  transactionType: string;
  searchTerm: string;
  /** Local start in the selected timezone, 'YYYY-MM-DDTHH:MM' (24-hour). */
  start: string;
  duration: number;
  amount: string;
  currency: string;
  merchantClientId: string;
}

/** LogSearchRequest is the body of POST /api/v1/transactions/search-in-logs. */
export interface LogSearchRequest {
  transactionType: number;
  fromDate: string;
  toDate: string;
  searchTerm: string;
  amount?: string;
  currency?: string;
  merchantClientId?: string;
  timezoneOffsetMinutes: number;
}

const HOUR = 3_600_000;
const pad = (n: number) => String(n).padStart(2, '0');

/** localStamp renders an instant as a zone-less 'YYYY-MM-DDTHH:MM:SS' in the zone. */
export function localStamp(at: Date, zone: string): string {
  const d = new Date(at.getTime() + timezoneByValue(zone).offset * HOUR);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** defaultLogSearch: start one hour before now in the zone, 15 minutes, nothing else filled. */
export function defaultLogSearch(now: Date, zone: string): LogSearchForm {
  return { transactionType: '', searchTerm: '', start: localStamp(new Date(now.getTime() - HOUR), zone).slice(0, 16), duration: 15, amount: '', currency: '', merchantClientId: '' };
}

/**
 * logSearchRequest checks the form against spec 02 §5 and builds the
 * request, or lists what is wrong: type, term (1–300), start and duration
 * required; start no later than the end of the next day in the zone; amount a
 * 2-decimal number ≥ 0.01; currency ≤ 10 (uppercased); client id ≤ 120.
 */
export function logSearchRequest(f: LogSearchForm, zone: string, now: Date): { ok: true; request: LogSearchRequest } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const type = Number(f.transactionType);
  if (type !== 1 && type !== 2) errors.push('Transaction type is required.');
  const term = f.searchTerm.trim();
  if (term.length < 1 || term.length > 300) errors.push('Search term must be 1 to 300 characters.');
  const offset = timezoneByValue(zone).offset;
  const startMs = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(f.start) ? Date.parse(`${f.start.length === 16 ? `${f.start}:00` : f.start}Z`) - offset * HOUR : NaN;
  if (Number.isNaN(startMs)) errors.push('Start date and time are required.');
  else {
    const local = new Date(now.getTime() + offset * HOUR);
    const endOfNextDayLocal = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + 2) - 1;
    if (startMs + offset * HOUR > endOfNextDayLocal) errors.push('Start date cannot be later than the end of the next day.');
  }
  if (!(DURATIONS as readonly number[]).includes(f.duration)) errors.push('Duration is required.');
  const amount = f.amount.trim();
  if (amount && !isLogAmount(amount)) errors.push('Amount must be at least 0.01 with at most 2 decimals.');
  const currency = f.currency.trim().toUpperCase();
  if (currency.length > 10) errors.push('Currency must be at most 10 characters.');
  const cid = f.merchantClientId.trim();
  if (cid.length > 120) errors.push('Merchant Client ID must be at most 120 characters.');
  if (errors.length) return { ok: false, errors };
  return {
    ok: true,
    request: {
      transactionType: type,
      fromDate: localStamp(new Date(startMs), zone),
      toDate: localStamp(new Date(startMs + f.duration * 60_000), zone),
      searchTerm: term,
      amount: amount || undefined,
      currency: currency || undefined,
      merchantClientId: cid || undefined,
      timezoneOffsetMinutes: offset * 60,
    },
  };
}

/** How long before a transaction's receipt a prefilled log search starts (spec 02 §5 hint). */
const LEAD_MS = 5 * 60_000;

/**
 * logSearchFromTransaction prefills the Search in Logs form from a row
 * (spec 02 §2, §5): its type, its reference id as the term, a start 5 minutes
 * before it was received (in the zone), 15 minutes, and its amount, currency
 * and merchant client id. Values the form would refuse are left empty.
 */
export function logSearchFromTransaction(
  t: { transactionType: number; transactionReferenceId: string; createdUtc: string; amount: string; currency: string; merchantClientId: string },
  zone: string,
  now: Date,
): LogSearchForm {
  const base = defaultLogSearch(now, zone);
  const created = parseTimestamp(t.createdUtc);
  const amount = isLogAmount(t.amount) ? t.amount : '';
  return {
    ...base,
    transactionType: t.transactionType === 1 || t.transactionType === 2 ? String(t.transactionType) : '',
    searchTerm: t.transactionReferenceId.slice(0, 300),
    start: Number.isNaN(created.getTime()) ? base.start : localStamp(new Date(created.getTime() - LEAD_MS), zone).slice(0, 16),
    amount,
    currency: t.currency.trim().toUpperCase().slice(0, 10),
    merchantClientId: t.merchantClientId.slice(0, 120),
  };
}
