import { addDecimal, subDecimal } from '@paygate/sdk';

/** The statuses of the doughnut and their cards, with the statistics field each reads. */
export const STATUS_FIGURES = [
  { key: 'successful', label: 'Successful', color: '#38a169' },
  { key: 'failed', label: 'Failed', color: '#e53e3e' },
  { key: 'pending', label: 'Pending', color: '#dd6b20' },
  { key: 'refunded', label: 'Refunded', color: '#805ad5' },
  { key: 'validationFailed', label: 'Validation Failed', color: '#d53f8c' },
  { key: 'pspError', label: 'Rolled Back', color: '#319795' },
  { key: 'cancelled', label: 'Cancelled', color: '#718096' },
  { key: 'notConfirmed', label: 'Not Confirmed', color: '#d69e2e' },
] as const;

/** StatusKey names a status count of the statistics answer. */
export type StatusKey = (typeof STATUS_FIGURES)[number]['key'];

/** StatusCounts are the total and the count per status. */
export type StatusCounts = { total: number } & Record<StatusKey, number>;

/** Slices under this share of the total are left out of the doughnut (spec 01 §5, §9). */
export const MIN_SLICE_SHARE = 0.03;

/** StatusSlice is one status of the doughnut. */
export interface StatusSlice {
  id: StatusKey;
  label: string;
  color: string;
  value: number;
  /** Share of the total, 0–1. */
  share: number;
}

/** StatusSlices split the statuses into the slices the doughnut draws and those only its legend lists. */
export interface StatusSlices {
  /** No transaction in the range: the chart says 'No Data'. */
  empty: boolean;
  /** At least 3% of the total: drawn. */
  shown: StatusSlice[];
  /** Above 0 but under 3% of the total: not drawn, listed in the legend. */
  small: StatusSlice[];
}

/** statusSlices applies the doughnut rule: slices under 3% of the total are hidden; none at all when the total is 0. */
export function statusSlices(counts: StatusCounts): StatusSlices {
  if (counts.total <= 0) return { empty: true, shown: [], small: [] };
  const all = STATUS_FIGURES.map((f) => ({ id: f.key, label: f.label, color: f.color, value: counts[f.key], share: counts[f.key] / counts.total })).filter(
    (s) => s.value > 0,
  );
  return { empty: false, shown: all.filter((s) => s.share >= MIN_SLICE_SHARE), small: all.filter((s) => s.share < MIN_SLICE_SHARE) };
}

/** percent renders a part of a whole with two decimals: 1 of 3 → '33.33%'; '0.00%' when the whole is 0. */
export function percent(part: number, whole: number): string {
  if (whole <= 0) return '0.00%';
  return `${((part / whole) * 100).toFixed(2)}%`;
}

/** successRate is successful ÷ total with two decimals (spec 01 §2), '0.00%' when there is no transaction. */
export function successRate(counts: Pick<StatusCounts, 'successful' | 'total'>): string {
  return percent(counts.successful, counts.total);
}

/** netCashFlow is cash in − cash out, exact (decimal strings). */
export function netCashFlow(cashIn: string, cashOut: string): string {
  return subDecimal(cashIn, cashOut);
}

/** totalVolume is cash in + cash out, exact (decimal strings). */
export function totalVolume(cashIn: string, cashOut: string): string {
  return addDecimal(cashIn, cashOut);
}

/** ProviderRow is one row of the transactions-by-provider table. */
export interface ProviderRow {
  providerId: number;
  providerName: string;
  count: number;
  percentage: string;
}

/** providerRows sorts the providers by count, most first (ties by name), with each one's share of the total. */
export function providerRows(providers: readonly { providerId: number; providerName: string; count: number }[], total: number): ProviderRow[] {
  return [...providers]
    .sort((a, b) => b.count - a.count || a.providerName.localeCompare(b.providerName))
    .map((p) => ({ providerId: p.providerId, providerName: p.providerName, count: p.count, percentage: percent(p.count, total) }));
}
