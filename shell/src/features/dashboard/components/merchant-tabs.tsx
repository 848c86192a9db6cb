import { Table, Tabs, Text } from '@chakra-ui/react';
import type { MerchantCashFlow } from '../api/get-statistics';
import { formatMoney } from '../utils/decimal';

function MerchantTable({ rows, label, currency }: { rows: MerchantCashFlow[]; label: string; currency: string }) {
  if (rows.length === 0) return <Text color="fg.muted">No {label.toLowerCase()} in this range.</Text>;
  return (
    <Table.Root size="sm" aria-label={`${label} per merchant`}>
      <Table.Header>
        <Table.Row>
          <Table.ColumnHeader>Merchant</Table.ColumnHeader>
          <Table.ColumnHeader textAlign="end">Count</Table.ColumnHeader>
          <Table.ColumnHeader textAlign="end">Amount</Table.ColumnHeader>
        </Table.Row>
      </Table.Header>
      <Table.Body>
        {rows.map((r) => (
          <Table.Row key={r.merchantId}>
            <Table.Cell>
              {r.merchantName} ({r.merchantId})
            </Table.Cell>
            <Table.Cell textAlign="end">{r.count.toLocaleString('en-US')}</Table.Cell>
            <Table.Cell textAlign="end">{formatMoney(r.amount, currency)}</Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table.Root>
  );
}

/** MerchantTabs are the admin's tabs Cash In and Cash Out, each listing the amount per merchant (spec 01 §2, §6). */
export function MerchantTabs({ cashIn, cashOut, currency }: { cashIn: MerchantCashFlow[]; cashOut: MerchantCashFlow[]; currency: string }) {
  return (
    <Tabs.Root defaultValue="cash-in" variant="line" lazyMount>
      <Tabs.List>
        <Tabs.Trigger value="cash-in">Cash In</Tabs.Trigger>
        <Tabs.Trigger value="cash-out">Cash Out</Tabs.Trigger>
      </Tabs.List>
      <Tabs.Content value="cash-in">
        <MerchantTable rows={cashIn} label="Cash In" currency={currency} />
      </Tabs.Content>
      <Tabs.Content value="cash-out">
        <MerchantTable rows={cashOut} label="Cash Out" currency={currency} />
      </Tabs.Content>
    </Tabs.Root>
  );
}
