import type { DateRange } from '../../../utils/date-range';

/** The page sizes of spec 02 §9; 5 is the default. */
export const PAGE_SIZES = [5, 10, 20, 30] as const;
export const DEFAULT_PAGE_SIZE = 5;

/** Filters are the Transactions page's state, kept in the query string (spec 02 §2). */
export interface Filters {
  selectedCollabId: number | null;
  /** 0 all, 1 deposit, 2 withdrawal. */
  transactionTypeFilter: number;
  transactionStatusesFilter: number[];
  providerTidFilter: string;
  merchantCidFilter: string;
  nonceFilter: string;
  minAmountFilter: string;
  maxAmountFilter: string;
  currencyFilter: string;
  paymentMethodValueFilter: string;
  paymentIpAddressFilter: string;
  /** null: the default range (not in the query string). */
  dateRange: DateRange | null;
  /** 1-based. */
  currentPage: number;
  pageSize: number;
}

export const EMPTY_FILTERS: Filters = {
  selectedCollabId: null,
  transactionTypeFilter: 0,
  transactionStatusesFilter: [],
  providerTidFilter: '',
  merchantCidFilter: '',
  nonceFilter: '',
  minAmountFilter: '',
  maxAmountFilter: '',
  currencyFilter: '',
  paymentMethodValueFilter: '',
  paymentIpAddressFilter: '',
  dateRange: null,
  currentPage: 1,
  pageSize: DEFAULT_PAGE_SIZE,
};

const TEXT_KEYS = [
  'providerTidFilter',
  'merchantCidFilter',
  'nonceFilter',
  'minAmountFilter',
  'maxAmountFilter',
  'currencyFilter',
  'paymentMethodValueFilter',
  'paymentIpAddressFilter',
] as const;

const int = (v: string | null): number | null => {
  if (v === null || !/^-?\d+$/.test(v)) return null;
  return Number(v);
};

const validIso = (v: string | undefined): v is string => !!v && !Number.isNaN(Date.parse(v));

/** parseFilters reads the state from a query string; unknown or malformed values fall back to defaults. */
export function parseFilters(params: URLSearchParams): Filters {
  const f: Filters = { ...EMPTY_FILTERS, transactionStatusesFilter: [] };
  const collab = int(params.get('selectedCollabId'));
  if (collab !== null && collab > 0) f.selectedCollabId = collab;
  const type = int(params.get('transactionTypeFilter'));
  if (type === 1 || type === 2) f.transactionTypeFilter = type;
  f.transactionStatusesFilter = (params.get('transactionStatusesFilter') ?? '')
    .split(',')
    .map((s) => int(s.trim()))
    .filter((n): n is number => n !== null);
  for (const k of TEXT_KEYS) f[k] = params.get(k) ?? '';
  const [from, to] = (params.get('dateRange') ?? '').split(',');
  if (validIso(from) && validIso(to)) f.dateRange = { from, to };
  const page = int(params.get('currentPage'));
  if (page !== null && page >= 1) f.currentPage = page;
  const size = int(params.get('pageSize'));
  if (size !== null && (PAGE_SIZES as readonly number[]).includes(size)) f.pageSize = size;
  return f;
}

/** serializeFilters writes the state as a query string, leaving defaults out. */
export function serializeFilters(f: Filters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.selectedCollabId !== null) p.set('selectedCollabId', String(f.selectedCollabId));
  if (f.transactionTypeFilter) p.set('transactionTypeFilter', String(f.transactionTypeFilter));
  if (f.transactionStatusesFilter.length) p.set('transactionStatusesFilter', f.transactionStatusesFilter.join(','));
  for (const k of TEXT_KEYS) if (f[k]) p.set(k, f[k]);
  if (f.dateRange) p.set('dateRange', `${f.dateRange.from},${f.dateRange.to}`);
  if (f.currentPage !== 1) p.set('currentPage', String(f.currentPage));
  if (f.pageSize !== DEFAULT_PAGE_SIZE) p.set('pageSize', String(f.pageSize));
  return p;
}

/** activeFilterCount counts the filters that narrow the list (the collab, date and paging aside). */
export function activeFilterCount(f: Filters): number {
  return (f.transactionTypeFilter ? 1 : 0) + (f.transactionStatusesFilter.length ? 1 : 0) + TEXT_KEYS.filter((k) => f[k]).length;
}
