import { divideDecimal, MONEY_DIGITS } from '@paygate/sdk';
import { STATUS_SUCCESS } from '../../../utils/status';
import type { Filters } from './query-state';

/** The currencies of the totals switch (spec 02 §9); PHP is the default. */
export const TOTAL_CURRENCIES = ['PHP', 'USD'] as const;
export type TotalCurrency = (typeof TOTAL_CURRENCIES)[number];

/**
 * needsTotals: totals are requested when a collab, a date, a type, a status
 * filter including Success, or a merchant CID filter is set (spec 02 §5).
 * `dateSet` says whether the list call carries a date range: the page sends
 * the chosen range or the default one (yesterday … today) whenever no free
 * text search is filled, so a date is then set. Without it, only a range the
 * user chose counts.
 */
export function needsTotals(f: Filters, { dateSet = f.dateRange !== null }: { dateSet?: boolean } = {}): boolean {
  return (
    f.selectedCollabId !== null ||
    dateSet ||
    f.transactionTypeFilter !== 0 ||
    f.transactionStatusesFilter.includes(STATUS_SUCCESS) ||
    f.merchantCidFilter.trim() !== ''
  );
}

/** TotalSummary is the total and average for one currency (exact decimal strings), or null when the server has no total for it. */
export type TotalSummary = { total: string; average: string } | null;

/** totalFor reads the total for a currency; the average is the total divided by the count, exactly, to the cent. */
export function totalFor(totals: Record<string, string>, currency: string, count: number): TotalSummary {
  const total = totals[currency];
  if (total === undefined) return null;
  return { total, average: count > 0 ? divideDecimal(total, count, MONEY_DIGITS) : '0' };
}
