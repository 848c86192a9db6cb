import { Alert, Badge, Box, Button, Card, EmptyState, Heading, IconButton, SimpleGrid, Skeleton, Stack, Table, Text } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { errorMessage, formatDateTime, isAdmin, mayCall, notify, PageFrame, SCREENS, useTimezone, useUser } from '@paygate/sdk';
import { Fragment, useEffect, useMemo, useState } from 'react';
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
  return <Balances admin={isAdmin(user)} />;
}

function Balances({ admin }: { admin: boolean }) {
  const [zone] = useTimezone();
  const client = useQueryClient();
  const collabs = useBalanceCollabs();
  const rows = useMemo(() => collabs.data ?? [], [collabs.data]);
  const balances = useBalances(rows);
  const [open, setOpen] = useState<Record<number, boolean>>({});
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
      {collabs.isError && (
        <Alert.Root status="error" role="alert">
          <Alert.Indicator />
          <Alert.Title>
            {LOAD_FAILED}: {errorMessage(collabs.error, 'Unknown error')}
          </Alert.Title>
        </Alert.Root>
      )}
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

      {collabs.isSuccess && rows.length === 0 ? (
        <EmptyState.Root>
          <EmptyState.Content>
            <EmptyState.Title>No collaboration reports a balance.</EmptyState.Title>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : (
        <Box overflowX="auto">
          <Table.Root size="sm" variant="outline" aria-label="Provider balances" aria-busy={collabs.isPending}>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader w="8" />
                <Table.ColumnHeader>Provider</Table.ColumnHeader>
                {admin && <Table.ColumnHeader>Merchant</Table.ColumnHeader>}
                <Table.ColumnHeader textAlign="end">Balance</Table.ColumnHeader>
                <Table.ColumnHeader>Currency</Table.ColumnHeader>
                <Table.ColumnHeader>Account</Table.ColumnHeader>
                <Table.ColumnHeader>Mode</Table.ColumnHeader>
                <Table.ColumnHeader>Status</Table.ColumnHeader>
                <Table.ColumnHeader>Updated</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {rows.map((c, i) => (
                <BalanceRow
                  key={c.collabId}
                  collab={c}
                  admin={admin}
                  zone={zone}
                  item={balances[i]?.data}
                  loading={balances[i]?.isFetching ?? true}
                  open={!!open[c.collabId]}
                  onToggle={() => setOpen((o) => ({ ...o, [c.collabId]: !o[c.collabId] }))}
                />
              ))}
            </Table.Body>
          </Table.Root>
        </Box>
      )}
    </PageFrame>
  );
}

interface RowProps {
  collab: BalanceCollab;
  admin: boolean;
  zone: string;
  item: BalanceItem | undefined;
  loading: boolean;
  open: boolean;
  onToggle: () => void;
}

const STATUS_PALETTE = { success: 'green', unknown: 'yellow', error: 'red' } as const;

function BalanceRow({ collab, admin, zone, item, loading, open, onToggle }: RowProps) {
  const name = admin ? `${collab.merchantName} - ${collab.providerName}` : collab.providerName;
  const cols = admin ? 9 : 8;
  return (
    <Fragment>
      <Table.Row aria-label={name}>
        <Table.Cell>
          <IconButton size="2xs" variant="ghost" aria-label={`${open ? 'Hide' : 'Show'} raw response of ${name}`} aria-expanded={open} onClick={onToggle} disabled={!item}>
            <span aria-hidden>{open ? '▾' : '▸'}</span>
          </IconButton>
        </Table.Cell>
        <Table.Cell>{collab.providerName}</Table.Cell>
        {admin && <Table.Cell>{collab.merchantName}</Table.Cell>}
        <Table.Cell textAlign="end" fontVariantNumeric="tabular-nums">
          {!item && loading ? <Skeleton height="4" w="20" /> : formatAmount(item?.amount ?? '')}
        </Table.Cell>
        <Table.Cell>{item?.currency ?? 'PHP'}</Table.Cell>
        <Table.Cell>
          {item?.accountId ? `${item.accountId} · ${item.accountType}` : item ? item.accountType : ''}
        </Table.Cell>
        <Table.Cell>
          {item && (
            <Badge variant="subtle" colorPalette={item.isLive ? 'green' : 'gray'}>
              {item.isLive ? 'Live' : 'Sandbox'}
            </Badge>
          )}
        </Table.Cell>
        <Table.Cell>
          {item && (
            <Badge variant="subtle" colorPalette={STATUS_PALETTE[item.status]} title={item.message || undefined} data-status={item.status}>
              {item.status}
            </Badge>
          )}
        </Table.Cell>
        <Table.Cell>{item?.updatedAt ? formatDateTime(item.updatedAt, zone) : '-'}</Table.Cell>
      </Table.Row>
      {open && item && (
        <Table.Row>
          <Table.Cell colSpan={cols}>
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
          </Table.Cell>
        </Table.Row>
      )}
    </Fragment>
  );
}

