import { Alert, Button, Card, Field, Flex, Heading, HStack, NativeSelect, SimpleGrid, Skeleton, Switch, Text } from '@chakra-ui/react';
import { formatDateTime, formatMoney, mayCall, notify, PageFrame, SCREENS, seesAllMerchants, useSelectedMerchant, useTimezone, useUser, WatchlistStrip, type User } from '@paygate/sdk';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { useStatistics, type Statistics, type StatisticsInput, type Unconverted } from '../api/get-statistics';
import { useAutoRefresh } from '../hooks/use-auto-refresh';
import { netCashFlow, STATUS_FIGURES, successRate, totalVolume } from '../utils/figures';
import { DEFAULT_RANGE_DAYS, RANGE_OPTIONS, SHORT_RANGE_OPTIONS } from '../utils/range';
import { CashFlowChart } from './cash-flow-chart';
import { MerchantTabs } from './merchant-tabs';
import { ProviderTable } from './provider-table';
import { StatusChart } from './status-chart';
import { FigureCards, type Figure } from './summary-cards';

/** The toasts of spec 01 §8. */
export const REFRESHED = { title: 'Data Updated', description: 'Dashboard data has been refreshed' } as const;
export const FETCH_FAILED = { title: 'Error', description: 'Failed to fetch dashboard data' } as const;

/**
 * merchantScope is the merchant the figures are asked for: the 'Current
 * Merchant' of a merchant user when it is one of theirs; an admin and a user
 * without merchants get every merchant they may see (the server scopes).
 */
export function merchantScope(user: User | null, selected: number | null): number | null {
  if (!user || seesAllMerchants(user) || selected === null) return null;
  return user.merchantIds.includes(selected) ? selected : null;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  const id = `dashboard-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return (
    <Card.Root as="section" aria-labelledby={id} size="sm">
      <Card.Header>
        <Heading as="h3" size="md" id={id}>
          {title}
        </Heading>
      </Card.Header>
      <Card.Body>{children}</Card.Body>
    </Card.Root>
  );
}

function UnconvertedNote({ items }: { items: Unconverted[] }) {
  if (items.length === 0) return null;
  return (
    <Alert.Root status="warning" role="note" aria-label="Amounts not converted">
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Title>Some amounts are not converted (no exchange rate) and are not in the totals:</Alert.Title>
        <Alert.Description>
          {items.map((u) => (
            <Text key={`${u.currency}-${u.transactionType}`}>
              {u.transactionType === 2 ? 'Cash out' : 'Cash in'}: {formatMoney(u.amount, u.currency)} ({u.count.toLocaleString('en-US')} transactions)
            </Text>
          ))}
        </Alert.Description>
      </Alert.Content>
    </Alert.Root>
  );
}

function statusFigures(stats: Statistics | undefined): Figure[] {
  return [
    { label: 'Total', value: (stats?.total ?? 0).toLocaleString('en-US') },
    ...STATUS_FIGURES.map((f) => ({ label: f.label, value: (stats?.[f.key] ?? 0).toLocaleString('en-US'), color: f.color })),
  ];
}

function derivedFigures(stats: Statistics | undefined): Figure[] {
  const currency = stats?.currency ?? 'USD';
  const cashIn = stats?.cashInData.amount ?? '0';
  const cashOut = stats?.cashOutData.amount ?? '0';
  return [
    { label: 'Success Rate', value: successRate(stats ?? { successful: 0, total: 0 }) },
    { label: 'Cash In', value: formatMoney(cashIn, currency) },
    { label: 'Cash Out', value: formatMoney(cashOut, currency) },
    { label: 'Net Cash Flow', value: formatMoney(netCashFlow(cashIn, cashOut), currency) },
    { label: 'Total Volume', value: formatMoney(totalVolume(cashIn, cashOut), currency) },
  ];
}

/** DashboardPage is the Financial Dashboard at / (spec 01 §2, §5, §8, §9), the shell's own screen. */
export default function DashboardPage() {
  const user = useUser();
  const [zone] = useTimezone();
  const [selectedMerchant] = useSelectedMerchant();
  const [days, setDays] = useState(DEFAULT_RANGE_DAYS);
  const input: StatisticsInput = { days, zone, merchantId: merchantScope(user, selectedMerchant) };
  const query = useStatistics(input);
  const { refetch } = query;

  // A refetch the auto-refresh started stays silent, success or failure.
  const quiet = useRef(false);
  const autoRefetch = useCallback(() => {
    quiet.current = true;
    void refetch();
  }, [refetch]);
  const auto = useAutoRefresh(autoRefetch);

  useEffect(() => {
    quiet.current = false;
  }, [query.dataUpdatedAt]);
  useEffect(() => {
    if (!query.isError) return;
    if (quiet.current) {
      quiet.current = false;
      return;
    }
    notify.error(FETCH_FAILED.title, FETCH_FAILED.description);
  }, [query.isError, query.errorUpdatedAt]);

  const [refreshing, setRefreshing] = useState(false);
  const refresh = async () => {
    quiet.current = false;
    setRefreshing(true);
    try {
      const result = await refetch();
      if (result.isSuccess) notify.success(REFRESHED.title, REFRESHED.description);
    } finally {
      setRefreshing(false);
    }
  };

  const stats = query.data;
  const loading = query.isPending;
  const admin = seesAllMerchants(user);

  return (
    <PageFrame
      title={SCREENS.dashboard.title}
      actions={
        <HStack gap="4" wrap="wrap" align="end">
          <Switch.Root
            size="sm"
            checked={auto.on && auto.available}
            disabled={!auto.available}
            onCheckedChange={(e) => auto.set(e.checked)}
            title={auto.available ? 'Refresh the figures when transactions change' : 'Needs the Get Transactions permission'}
          >
            <Switch.HiddenInput />
            <Switch.Control />
            <Switch.Label>Auto-refresh</Switch.Label>
          </Switch.Root>
          <Field.Root w="44">
            <Field.Label>Time range</Field.Label>
            <NativeSelect.Root size="sm">
              <NativeSelect.Field value={String(days)} onChange={(e) => setDays(Number(e.target.value))}>
                {[...SHORT_RANGE_OPTIONS, ...RANGE_OPTIONS].map((o) => (
                  <option key={o.days} value={String(o.days)}>
                    {o.label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <Button size="sm" onClick={() => void refresh()} loading={refreshing} loadingText="Refreshing" disabled={loading}>
            Refresh
          </Button>
        </HStack>
      }
    >
      <Flex justify="space-between" wrap="wrap" gap="2" color="fg.muted" fontSize="sm">
        <Text aria-live="polite">
          {stats ? `Last updated: ${formatDateTime(query.dataUpdatedAt, zone)}` : loading ? 'Loading figures…' : ''}
          {auto.on && auto.available && (auto.live ? ' · Live' : ' · Connecting to live updates…')}
        </Text>
        {stats && (
          <Text>
            {formatDateTime(stats.range.from, zone)} – {formatDateTime(stats.range.to, zone)}
          </Text>
        )}
      </Flex>

      <WatchlistStrip enabled={!!user && mayCall(user, 'GET /api/v1/watchlists')} />

      {query.isError && (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Title>{FETCH_FAILED.description}</Alert.Title>
        </Alert.Root>
      )}

      {stats && stats.total === 0 && (
        <Alert.Root status="info">
          <Alert.Indicator />
          <Alert.Title>No transactions in this range.</Alert.Title>
        </Alert.Root>
      )}

      {stats && <UnconvertedNote items={stats.unconverted} />}

      <FigureCards label="Transactions by status" figures={statusFigures(stats)} loading={loading} columns={{ base: 2, md: 3, xl: 5 }} />
      <FigureCards label="Derived figures" figures={derivedFigures(stats)} loading={loading} columns={{ base: 1, md: 3, xl: 5 }} />

      <SimpleGrid columns={{ base: 1, xl: 2 }} gap="4">
        <Section title="Transaction Status">
          {stats ? <StatusChart counts={stats} /> : <Skeleton h="240px" loading={loading} />}
        </Section>
        <Section title="Cash In / Cash Out">
          {stats ? (
            <CashFlowChart cashIn={stats.cashInData} cashOut={stats.cashOutData} currency={stats.currency} zone={zone} />
          ) : (
            <Skeleton h="260px" loading={loading} />
          )}
        </Section>
      </SimpleGrid>

      <SimpleGrid columns={{ base: 1, xl: admin ? 2 : 1 }} gap="4">
        <Section title="Transactions by Provider">{stats ? <ProviderTable stats={stats} /> : <Skeleton h="32" loading={loading} />}</Section>
        {admin && (
          <Section title="Amount per Merchant">
            {stats ? (
              <MerchantTabs cashIn={stats.cashInDataByMerchant} cashOut={stats.cashOutDataByMerchant} currency={stats.currency} />
            ) : (
              <Skeleton h="32" loading={loading} />
            )}
          </Section>
        )}
      </SimpleGrid>
    </PageFrame>
  );
}
