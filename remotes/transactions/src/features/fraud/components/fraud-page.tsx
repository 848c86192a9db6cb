import { Button, Field, HStack, Input, NativeSelect, Stack, Wrap } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import {
  errorMessage,
  hasPermission,
  mayCall,
  mayStopFraudCallbacks,
  merchantLabel,
  merchantsQuery,
  NoPermission,
  notify,
  PageFrame,
  SCREENS,
  seesAllMerchants,
  useTimezone,
  useUser,
  ViewsBar,
  type AppliedView,
  type User,
} from '@paygate/sdk';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useFrauds, type FraudsInput } from '../api/get-frauds';
import type { Fraud } from '../api/types';
import { dayOf, defaultFraudRange, FRAUD_MIN_DAY, fraudRange, type DateRange } from '../utils/date-range';
import { EMPTY_FILTERS, fraudFiltersOfView, fraudViewQuery, merchantFilterInvalid, REVIEW_STATUSES, transactionIdInvalid, type FraudDays, type FraudFilters } from '../utils/fraud';
import { FraudsTable } from './frauds-table';
import { ManageFraudDialog } from './manage-fraud-dialog';

/** The table's page sizes and default (spec 02 §9). */
export const FRAUD_PAGE_SIZES = [5, 10, 20, 30] as const;
export const DEFAULT_FRAUD_PAGE_SIZE = 5;

/** FraudManagementPage is the Fraud Management screen (route /fraud-management, spec 02 "Fraud Management"); it needs View Frauds. */
export function FraudManagementPage() {
  const user = useUser();
  if (!user || !hasPermission(user, 'View Frauds')) return <NoPermission />;
  return <FraudView user={user} />;
}

/** toInput turns the applied filters, range and page into the list call's query. */
export function toInput(f: FraudFilters, range: DateRange, pageIndex: number, take: number): FraudsInput {
  const text = (v: string) => (v.trim() ? v.trim() : undefined);
  return {
    page: pageIndex + 1,
    take,
    status: f.status === '' ? undefined : Number(f.status),
    clientId: text(f.clientId),
    merchantId: f.merchantId ?? undefined,
    merchantClientId: text(f.merchantClientId),
    transactionId: text(f.transactionId),
    referenceId: text(f.referenceId),
    startDate: range.from,
    endDate: range.to,
  };
}

/** defaultDays are the days the date inputs show for a range: its first and last day in the zone, at most today. */
function defaultDays(range: DateRange, zone: string) {
  const today = dayOf(new Date().toISOString(), zone);
  const last = dayOf(range.to, zone);
  return { from: dayOf(range.from, zone), to: last > today ? today : last };
}

function FraudView({ user }: { user: User }) {
  const [zone] = useTimezone();
  const admin = seesAllMerchants(user);
  const merchants = useQuery({ ...merchantsQuery(user.username), enabled: admin });
  // The form, and what the list was asked with (applied by Search).
  const [draft, setDraft] = useState<FraudFilters>(EMPTY_FILTERS);
  const [applied, setApplied] = useState<FraudFilters>(EMPTY_FILTERS);
  const initial = useMemo(() => defaultFraudRange(new Date(), zone), [zone]);
  // The days on screen; until the user changes them, Search keeps the default range (it ends an hour ahead, not at midnight).
  const [days, setDays] = useState(() => defaultDays(initial, zone));
  const [daysTouched, setDaysTouched] = useState(false);
  const [range, setRange] = useState<DateRange>(initial);
  // The days Search applied (null: the default range); a saved view keeps them.
  const [appliedDays, setAppliedDays] = useState<FraudDays>(null);
  // The table's page is 0-based; the server's 1-based (spec 02 §3).
  const [pageIndex, setPageIndex] = useState(0);
  const [take, setTake] = useState(DEFAULT_FRAUD_PAGE_SIZE);
  const [editing, setEditing] = useState<Fraud | null>(null);

  const merchantInvalid = merchantFilterInvalid(draft, admin);
  const txInvalid = transactionIdInvalid(draft);
  const list = useFrauds(toInput(applied, range, pageIndex, take));

  const failure = list.isError ? errorMessage(list.error, 'Unknown error') : null;
  useEffect(() => {
    if (failure) notify.error(`Failed to fetch frauds: ${failure}`);
  }, [failure]);

  const today = dayOf(new Date().toISOString(), zone);
  function search() {
    if (merchantInvalid || txInvalid) return;
    setApplied(draft);
    const chosen = daysTouched && days.from;
    setRange(chosen ? fraudRange(days.from, days.to, zone, new Date()) : defaultFraudRange(new Date(), zone));
    setAppliedDays(chosen ? days : null);
    setPageIndex(0);
  }
  function reset() {
    const r = defaultFraudRange(new Date(), zone);
    setDraft(EMPTY_FILTERS);
    setApplied(EMPTY_FILTERS);
    setDays(defaultDays(r, zone));
    setDaysTouched(false);
    setRange(r);
    setAppliedDays(null);
    setPageIndex(0);
  }
  // A saved view opens: its filters become the form's and the list's, its page size the table's.
  const applyView = useCallback(
    (v: AppliedView) => {
      const { filters, days: viewDays } = fraudFiltersOfView(v.query);
      const now = new Date();
      const r = viewDays ? fraudRange(viewDays.from, viewDays.to, zone, now) : defaultFraudRange(now, zone);
      setDraft(filters);
      setApplied(filters);
      setDays(viewDays ?? defaultDays(r, zone));
      setDaysTouched(!!viewDays);
      setRange(r);
      setAppliedDays(viewDays);
      setPageIndex(0);
      if ((FRAUD_PAGE_SIZES as readonly number[]).includes(v.pageSize)) setTake(v.pageSize);
    },
    [zone],
  );
  const viewFilters = useMemo(() => fraudViewQuery(applied, appliedDays), [applied, appliedDays]);
  const set = (patch: Partial<FraudFilters>) => setDraft((d) => ({ ...d, ...patch }));

  const data = list.data;
  return (
    <PageFrame title={SCREENS.fraudManagement.title}>
      <Stack gap={4}>
        <ViewsBar list="frauds" user={user} filterParams={viewFilters} layout={{ pageSize: take }} onApply={applyView} />
        <Wrap gap={3} align="flex-end" as="form" onSubmit={(e) => (e.preventDefault(), search())}>
          <Field.Root w="40">
            <Field.Label>Status</Field.Label>
            <NativeSelect.Root size="sm">
              <NativeSelect.Field aria-label="Status filter" value={draft.status} onChange={(e) => set({ status: e.target.value })}>
                <option value="">All</option>
                {REVIEW_STATUSES.map((s) => (
                  <option key={s.value} value={String(s.value)}>
                    {s.label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          {admin && (
            <Field.Root w="56" invalid={merchantInvalid}>
              <Field.Label>Merchant</Field.Label>
              <NativeSelect.Root size="sm">
                <NativeSelect.Field aria-label="Merchant" value={draft.merchantId ?? ''} onChange={(e) => set({ merchantId: e.target.value ? Number(e.target.value) : null })}>
                  <option value="">All merchants</option>
                  {merchants.data?.map((m) => (
                    <option key={m.id} value={m.id}>
                      {merchantLabel(m)}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
              {merchantInvalid && <Field.ErrorText>Select a merchant to filter by merchant client ID.</Field.ErrorText>}
            </Field.Root>
          )}
          <Field.Root w="44">
            <Field.Label>Client ID</Field.Label>
            <Input size="sm" value={draft.clientId} onChange={(e) => set({ clientId: e.target.value })} />
          </Field.Root>
          <Field.Root w="44">
            <Field.Label>Merchant client ID</Field.Label>
            <Input size="sm" value={draft.merchantClientId} onChange={(e) => set({ merchantClientId: e.target.value })} />
          </Field.Root>
          <Field.Root w="36" invalid={txInvalid}>
            <Field.Label>Transaction ID</Field.Label>
            <Input size="sm" inputMode="numeric" value={draft.transactionId} onChange={(e) => set({ transactionId: e.target.value })} />
            {txInvalid && <Field.ErrorText>Digits only.</Field.ErrorText>}
          </Field.Root>
          <Field.Root w="44">
            <Field.Label>Reference ID</Field.Label>
            <Input size="sm" value={draft.referenceId} onChange={(e) => set({ referenceId: e.target.value })} />
          </Field.Root>
          <Field.Root w="40">
            <Field.Label>From</Field.Label>
            <Input size="sm" type="date" aria-label="From day" min={FRAUD_MIN_DAY} max={today} value={days.from} onChange={(e) => (setDays({ ...days, from: e.target.value }), setDaysTouched(true))} />
          </Field.Root>
          <Field.Root w="40">
            <Field.Label>To</Field.Label>
            <Input size="sm" type="date" aria-label="To day" min={FRAUD_MIN_DAY} max={today} value={days.to} onChange={(e) => (setDays({ ...days, to: e.target.value }), setDaysTouched(true))} />
          </Field.Root>
          <HStack gap={2}>
            <Button size="sm" type="submit" disabled={merchantInvalid || txInvalid}>
              Search
            </Button>
            <Button size="sm" variant="outline" onClick={reset}>
              Reset
            </Button>
          </HStack>
        </Wrap>
        <FraudsTable
          frauds={data?.frauds ?? []}
          zone={zone}
          loading={list.isPending}
          failure={failure}
          onRetry={() => void list.refetch()}
          pagination={{
            label: 'Fraud pages',
            page: pageIndex + 1,
            totalPages: data?.totalPages ?? 0,
            totalCount: data?.totalCount ?? 0,
            pageSize: take,
            pageSizes: FRAUD_PAGE_SIZES,
            onPage: (p) => setPageIndex(p - 1),
            onPageSize: (s) => {
              setTake(s);
              setPageIndex(0);
            },
          }}
          canEdit={mayCall(user, 'POST /api/v1/frauds/{id}/status/{status}')}
          onEdit={setEditing}
        />
      </Stack>
      {editing && <ManageFraudDialog fraud={editing} canCancelCallbacks={mayStopFraudCallbacks(user)} onClose={() => setEditing(null)} />}
    </PageFrame>
  );
}
