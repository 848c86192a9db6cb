import { Badge, Button, Card, Heading, SimpleGrid, Skeleton, Stack, Text } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { DataTable, errorMessage, formatDateTime, mayCall, notify, PageFrame, SCREENS, seesAllMerchants, useTimezone, useUser, type DataColumn } from '@paygate/sdk';
import { useEffect, useMemo, useState } from 'react';
import { useBalances, type BalanceItem } from '../api/get-balance';
import { BALANCE_COLLABS_KEY, useBalanceCollabs, type BalanceCollab } from '../api/list-balance-collabs';
import { formatAmount, totals } from '../utils/balances';
import { RawResponse } from './raw-response';

/** The texts of spec 02 §2 and §8. */
export const NOT_AUTHORIZED = 'You are not authorized to view this page.';
export const UPDATED = 'Balances Updated';
export const LOAD_FAILED = 'Failed to load balances';
export const REFRESH_FAILED = 'Failed to refresh balances';

/**
 * BalancesPage shows the providers' balances of the caller's collabs (spec 02
 * §2 "Balances"). It needs what the server asks of its list call (Balance
 * Access, and the role Admin or a merchant role: spec 02 §6); others see
 * NOT_AUTHORIZED.
 */
export function BalancesPage() {
  const user = useUser();
  if (!user || !mayCall(user, 'GET /api/v1/balances/collabs')) {
    return (
      <PageFrame title={SCREENS.balances.title}>
        <Text>{NOT_AUTHORIZED}</Text>
      </PageFrame>
    );
  }
  return <Balances admin={seesAllMerchants(user)} />;
}

function Balances({ admin }: { admin: boolean }) {
  const [zone] = useTimezone();
  const client = useQueryClient();
  const collabs = useBalanceCollabs();
  const rows = useMemo(() => collabs.data ?? [], [collabs.data]);
  const balances = useBalances(rows);
  const [refreshing, setRefreshing] = useState(false);

  useEffect(() => {
    if (collabs.isError) notify.error(`${LOAD_FAILED}: ${errorMessage(collabs.error, 'Unknown error')}`);
  }, [collabs.isError, collabs.error, collabs.errorUpdatedAt]);

  const items = balances.map((b) => b.data).filter((b): b is BalanceItem => !!b);
  const sums = totals(items);
  const lastUpdated = Math.max(0, ...balances.map((b) => b.dataUpdatedAt));

  async function refresh() {
    setRefreshing(true);
    try {
      await client.refetchQueries({ queryKey: BALANCE_COLLABS_KEY }, { throwOnError: true });
      await client.refetchQueries({ queryKey: ['balances', 'item'] });
      notify.success(UPDATED);
    } catch (err) {
      notify.error(`${REFRESH_FAILED}: ${errorMessage(err, 'Unknown error')}`);
    } finally {
      setRefreshing(false);
    }
  }

  return (
    <PageFrame
      title={SCREENS.balances.title}
      actions={
        <Button size="sm" variant="outline" loading={refreshing} loadingText="Refreshing" onClick={() => void refresh()}>
          <span aria-hidden>⟳</span>
          Refresh
        </Button>
      }
    >
      <SimpleGrid columns={{ base: 1, md: 2 }} gap="4">
        <Card.Root as="section" aria-label="Total balance">
          <Card.Body>
            <Heading size="sm" as="h3">
              Total balance
            </Heading>
            {collabs.isPending || balances.some((b) => b.isPending) ? (
              <Skeleton height="6" mt="2" />
            ) : sums.length === 0 ? (
              <Text mt="2">PHP -</Text>
            ) : (
              sums.map((s) => (
                <Text key={s.currency} mt="2" fontSize="xl" fontWeight="semibold">
                  {s.currency} {s.amount}
                </Text>
              ))
            )}
          </Card.Body>
        </Card.Root>
        <Card.Root as="section" aria-label="Last updated">
          <Card.Body>
            <Heading size="sm" as="h3">
              Last updated
            </Heading>
            <Text mt="2">{lastUpdated > 0 ? formatDateTime(lastUpdated, zone) : '-'}</Text>
          </Card.Body>
        </Card.Root>
      </SimpleGrid>

      <DataTable
        label="Provider balances"
        columns={balanceColumns(admin, zone)}
        rows={rows.map((collab, i): BalanceRow => ({ collab, item: balances[i]?.data, loading: balances[i]?.isFetching ?? true }))}
        rowKey={(r) => String(r.collab.collabId)}
        rowProps={(r) => ({ 'aria-label': rowName(r.collab, admin) })}
        loading={collabs.isPending}
        empty="No collaboration reports a balance."
        error={collabs.isError && `${LOAD_FAILED}: ${errorMessage(collabs.error, 'Unknown error')}`}
        onRetry={() => void collabs.refetch()}
        retrying={collabs.isFetching}
        expansion={{
          toggleLabel: (r, open) => `${open ? 'Hide' : 'Show'} raw response of ${rowName(r.collab, admin)}`,
          canExpand: (r) => !!r.item,
          detail: (r) => <RawDetail name={rowName(r.collab, admin)} item={r.item!} />,
        }}
      />
    </PageFrame>
  );
}

/** BalanceRow is a collab with its balance, once answered. */
interface BalanceRow {
  collab: BalanceCollab;
  item: BalanceItem | undefined;
  /** The balance is being asked for. */
  loading: boolean;
}

const STATUS_PALETTE = { success: 'green', unknown: 'yellow', error: 'red' } as const;

/** rowName names a row: the provider, after its merchant for an admin. */
const rowName = (collab: BalanceCollab, admin: boolean) => (admin ? `${collab.merchantName} - ${collab.providerName}` : collab.providerName);

function balanceColumns(admin: boolean, zone: string): DataColumn<BalanceRow>[] {
  return [
    { key: 'provider', header: 'Provider', cell: (r) => r.collab.providerName },
    ...(admin ? [{ key: 'merchant', header: 'Merchant', cell: (r: BalanceRow) => r.collab.merchantName }] : []),
    {
      key: 'balance',
      header: 'Balance',
      align: 'end',
      cellProps: { fontVariantNumeric: 'tabular-nums' },
      cell: (r) => (!r.item && r.loading ? <Skeleton height="4" w="20" /> : formatAmount(r.item?.amount ?? '')),
    },
    { key: 'currency', header: 'Currency', cell: (r) => r.item?.currency ?? 'PHP' },
    { key: 'account', header: 'Account', cell: ({ item }) => (item?.accountId ? `${item.accountId} · ${item.accountType}` : item ? item.accountType : '') },
    {
      key: 'mode',
      header: 'Mode',
      cell: ({ item }) =>
        item && (
          <Badge variant="subtle" colorPalette={item.isLive ? 'green' : 'gray'}>
            {item.isLive ? 'Live' : 'Sandbox'}
          </Badge>
        ),
    },
    {
      key: 'status',
      header: 'Status',
      cell: ({ item }) =>
        item && (
          <Badge variant="subtle" colorPalette={STATUS_PALETTE[item.status]} title={item.message || undefined} data-status={item.status}>
            {item.status}
          </Badge>
        ),
    },
    { key: 'updated', header: 'Updated', cell: ({ item }) => (item?.updatedAt ? formatDateTime(item.updatedAt, zone) : '-') },
  ];
}

/** RawDetail is a row's detail: the provider's message, the additional balances and the raw response. */
function RawDetail({ name, item }: { name: string; item: BalanceItem }) {
  return (
    <Stack gap="2" aria-label={`Raw response of ${name}`} role="group">
      {item.message && <Text color="fg.muted">{item.message}</Text>}
      {Object.keys(item.additionalBalances).length > 0 && (
        <Text fontSize="sm">
          Additional balances:{' '}
          {Object.entries(item.additionalBalances)
            .map(([k, v]) => `${k} ${formatAmount(v)}`)
            .join(', ')}
        </Text>
      )}
      <RawResponse value={item.rawData} />
    </Stack>
  );
}
