import type { ExportFilterJson } from '@paygate/gen/gateway/v1/files_pb';
import { formatDateTime, type ExportFilterLabels } from '@paygate/sdk';

/** FilterKey names one removable filter of the export (the collab counts as one). */
export type FilterKey =
  | 'collab'
  | 'type'
  | 'statuses'
  | 'dateRange'
  | 'providerTid'
  | 'merchantCid'
  | 'nonce'
  | 'minAmount'
  | 'maxAmount'
  | 'currency'
  | 'paymentMethodValue'
  | 'paymentIpAddress';

/** ActiveFilter is one filter as step 1 lists it. */
export interface ActiveFilter {
  key: FilterKey;
  title: string;
  value: string;
}

/** ExportScope is what the export selects: the collab (null: every collab in scope) and the filter. */
export interface ExportScope {
  collabId: number | null;
  filter: ExportFilterJson;
}

const TEXT_FILTERS: { key: FilterKey & keyof ExportFilterJson; title: string }[] = [
  { key: 'providerTid', title: 'Provider TID' },
  { key: 'merchantCid', title: 'Merchant Client ID' },
  { key: 'nonce', title: 'Nonce' },
  { key: 'minAmount', title: 'Min Amount' },
  { key: 'maxAmount', title: 'Max Amount' },
  { key: 'currency', title: 'Currency' },
  { key: 'paymentMethodValue', title: 'Payment Method' },
  { key: 'paymentIpAddress', title: 'Payment IP Address' },
];

const TYPES: Record<number, string> = { 1: 'Deposit', 2: 'Withdrawal' };

function dateRangeText(from: string | undefined, to: string | undefined, zone: string): string {
  const f = from ? formatDateTime(from, zone) || from : '';
  const t = to ? formatDateTime(to, zone) || to : '';
  if (f && t) return `${f} – ${t}`;
  return f ? `From ${f}` : `Until ${t}`;
}

/**
 * activeFilters lists the filters an export would apply, in the order of the
 * transactions page's filter bar, each shown as the page labels it (or as its
 * value).
 */
export function activeFilters({ collabId, filter }: ExportScope, labels: ExportFilterLabels = {}, zone = 'UTC'): ActiveFilter[] {
  const list: ActiveFilter[] = [];
  if (collabId) list.push({ key: 'collab', title: 'Collab', value: labels.collab || `Collab ${collabId}` });
  if (filter.type) list.push({ key: 'type', title: 'Transaction Type', value: labels.type || TYPES[filter.type] || String(filter.type) });
  if (filter.statuses?.length) list.push({ key: 'statuses', title: 'Statuses', value: labels.statuses || filter.statuses.join(', ') });
  if (filter.from || filter.to) list.push({ key: 'dateRange', title: 'Date Range', value: labels.dateRange || dateRangeText(filter.from, filter.to, zone) });
  for (const { key, title } of TEXT_FILTERS) {
    const v = filter[key];
    if (typeof v === 'string' && v.trim() !== '') list.push({ key, title, value: v });
  }
  return list;
}

/** removeFilter drops one filter from the export (the date range drops both ends, the payment method its type too). */
export function removeFilter(scope: ExportScope, key: FilterKey): ExportScope {
  if (key === 'collab') return { ...scope, collabId: null };
  const filter = { ...scope.filter };
  if (key === 'dateRange') {
    delete filter.from;
    delete filter.to;
  } else if (key === 'paymentMethodValue') {
    delete filter.paymentMethodValue;
    delete filter.paymentMethodType;
  } else {
    delete filter[key];
  }
  return { ...scope, filter };
}

/** cleanFilter leaves out the filters that select nothing (empty text, no statuses, type 0). */
export function cleanFilter(filter: ExportFilterJson): ExportFilterJson {
  const out: ExportFilterJson = {};
  for (const [k, v] of Object.entries(filter) as [keyof ExportFilterJson, unknown][]) {
    if (v === undefined || v === null || v === '' || v === 0 || (Array.isArray(v) && v.length === 0)) continue;
    (out as Record<string, unknown>)[k] = v;
  }
  if (!out.paymentMethodValue) delete out.paymentMethodType;
  return out;
}
