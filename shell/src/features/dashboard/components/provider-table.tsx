import { DataTable, type DataColumn } from '@paygate/sdk';
import type { Statistics } from '../api/get-statistics';
import { providerRows, type ProviderRow } from '../utils/figures';

const COLUMNS: DataColumn<ProviderRow>[] = [
  { key: 'provider', header: 'Provider', cell: (r) => r.providerName },
  { key: 'count', header: 'Count', align: 'end', cell: (r) => r.count.toLocaleString('en-US') },
  { key: 'percentage', header: 'Percentage', align: 'end', cell: (r) => r.percentage },
];

/** ProviderTable is the transactions-by-provider table: Provider, Count, Percentage, most first. */
export function ProviderTable({ stats }: { stats: Statistics }) {
  return (
    <DataTable
      label="Transactions by provider"
      columns={COLUMNS}
      rows={providerRows(stats.byProvider, stats.total)}
      rowKey={(r) => String(r.providerId)}
      empty="No provider has transactions in this range."
    />
  );
}
