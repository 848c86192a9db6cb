import { Table, Text } from '@chakra-ui/react';
import type { Statistics } from '../api/get-statistics';
import { providerRows } from '../utils/figures';

/** ProviderTable is the transactions-by-provider table: Provider, Count, Percentage, most first. */
export function ProviderTable({ stats }: { stats: Statistics }) {
  const rows = providerRows(stats.byProvider, stats.total);
  if (rows.length === 0) return <Text color="fg.muted">No provider has transactions in this range.</Text>;
  return (
    <Table.Root size="sm" aria-label="Transactions by provider">
      <Table.Header>
        <Table.Row>
          <Table.ColumnHeader>Provider</Table.ColumnHeader>
          <Table.ColumnHeader textAlign="end">Count</Table.ColumnHeader>
          <Table.ColumnHeader textAlign="end">Percentage</Table.ColumnHeader>
        </Table.Row>
      </Table.Header>
      <Table.Body>
        {rows.map((r) => (
          <Table.Row key={r.providerId}>
            <Table.Cell>{r.providerName}</Table.Cell>
            <Table.Cell textAlign="end">{r.count.toLocaleString('en-US')}</Table.Cell>
            <Table.Cell textAlign="end">{r.percentage}</Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table.Root>
  );
}
