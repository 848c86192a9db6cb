import { Button, Field, HStack, NativeSelect, Stack, Text, Wrap } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import { errorMessage, formatDateTime, hasPermission, mayCall, merchantLabel, merchantsQuery, NoPermission, PageFrame, SCREENS, seesAllMerchants, useTimezone, useUser, type User } from '@paygate/sdk';
import { useMemo, useState } from 'react';
import { useProviders } from '../api/get-providers';
import { useRadar, type RadarInput } from '../api/get-radar';
import { RadarTable } from './radar-table';
import { SlaSection } from './sla-section';

const ANY: RadarInput = { providerId: 0, merchantId: 0, transactionType: 0 };

/** RadarPage is the stuck-money radar (route /radar, docs/contracts-radar.md); it needs Get Transactions. */
export function RadarPage() {
  const user = useUser();
  if (!user || !hasPermission(user, 'Get Transactions')) return <NoPermission />;
  return <RadarView user={user} />;
}

function RadarView({ user }: { user: User }) {
  const [zone] = useTimezone();
  const admin = seesAllMerchants(user);
  const merchants = useQuery({ ...merchantsQuery(user.username), enabled: admin });
  const providers = useProviders(mayCall(user, 'GET /api/v1/providers'));
  const [filters, setFilters] = useState<RadarInput>(ANY);
  const radar = useRadar(filters);
  const rows = useMemo(() => radar.pages.flatMap((p) => p.rows), [radar.pages]);
  const asOf = radar.pages[0]?.asOf;
  const failure = radar.isError ? errorMessage(radar.error, 'Unknown error') : null;
  const set = (patch: Partial<RadarInput>) => setFilters((f) => ({ ...f, ...patch }));
  const mismatches = rows.filter((r) => r.mismatch).length;

  return (
    <PageFrame title={SCREENS.radar.title}>
      <Stack gap={6}>
        <Text color="fg.muted">Transactions that are not final and older than their SLA, oldest first, with what their provider says now.</Text>
        <Wrap gap={3} align="flex-end">
          {providers.data && (
            <Field.Root w="48">
              <Field.Label>Provider</Field.Label>
              <NativeSelect.Root size="sm">
                <NativeSelect.Field aria-label="Provider filter" value={filters.providerId} onChange={(e) => set({ providerId: Number(e.target.value) })}>
                  <option value={0}>All providers</option>
                  {providers.data.map((p) => (
                    <option key={p.id} value={p.id}>
                      {p.name}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
            </Field.Root>
          )}
          {admin && (
            <Field.Root w="56">
              <Field.Label>Merchant</Field.Label>
              <NativeSelect.Root size="sm">
                <NativeSelect.Field aria-label="Merchant filter" value={filters.merchantId} onChange={(e) => set({ merchantId: Number(e.target.value) })}>
                  <option value={0}>All merchants</option>
                  {merchants.data?.map((m) => (
                    <option key={m.id} value={m.id}>
                      {merchantLabel(m)}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
            </Field.Root>
          )}
          <Field.Root w="40">
            <Field.Label>Direction</Field.Label>
            <NativeSelect.Root size="sm">
              <NativeSelect.Field aria-label="Direction filter" value={filters.transactionType} onChange={(e) => set({ transactionType: Number(e.target.value) })}>
                <option value={0}>Both</option>
                <option value={1}>Deposits</option>
                <option value={2}>Withdrawals</option>
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <HStack gap={2}>
            <Button size="sm" onClick={radar.refreshProviders} loading={radar.isRefreshing} disabled={radar.isPending}>
              Refresh provider status
            </Button>
            <Button size="sm" variant="outline" onClick={() => setFilters(ANY)}>
              Reset
            </Button>
          </HStack>
        </Wrap>
        {rows.length > 0 && (
          <Text fontSize="sm" role="status">
            {rows.length}
            {radar.hasNextPage ? '+' : ''} overdue {rows.length === 1 ? 'transaction' : 'transactions'}
            {mismatches > 0 && `, ${mismatches} where the provider's status differs from ours`}
            {asOf && ` · as of ${formatDateTime(asOf, zone)}`}
          </Text>
        )}
        <RadarTable rows={rows} zone={zone} loading={radar.isPending} failure={failure} onRetry={radar.retry} />
        {radar.hasNextPage && (
          <Button alignSelf="center" size="sm" variant="outline" onClick={radar.loadMore} loading={radar.isFetchingNextPage}>
            Load more
          </Button>
        )}
        <SlaSection zone={zone} canEdit={mayCall(user, 'PUT /api/v1/radar/slas')} providers={providers.data ?? []} />
      </Stack>
    </PageFrame>
  );
}
