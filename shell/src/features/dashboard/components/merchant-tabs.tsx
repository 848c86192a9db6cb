import { Tabs } from '@chakra-ui/react';
import { DataTable, formatMoney, type DataColumn } from '@paygate/sdk';
import type { MerchantCashFlow } from '../api/get-statistics';

function columns(currency: string): DataColumn<MerchantCashFlow>[] {
  return [
    { key: 'merchant', header: 'Merchant', cell: (r) => `${r.merchantName} (${r.merchantId})` },
    { key: 'count', header: 'Count', align: 'end', cell: (r) => r.count.toLocaleString('en-US') },
    { key: 'amount', header: 'Amount', align: 'end', cell: (r) => formatMoney(r.amount, currency) },
  ];
}

function MerchantTable({ rows, label, currency }: { rows: MerchantCashFlow[]; label: string; currency: string }) {
  return (
    <DataTable
      label={`${label} per merchant`}
      columns={columns(currency)}
      rows={rows}
      rowKey={(r) => String(r.merchantId)}
      empty={`No ${label.toLowerCase()} in this range.`}
    />
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
