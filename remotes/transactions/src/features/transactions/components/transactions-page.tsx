import { Button, Field, HStack, Input, NativeSelect, Text } from '@chakra-ui/react';
import {
  ConfirmDialog,
  errorMessage,
  formatMoney,
  hasPermission,
  keepView,
  mayCall,
  NoPermission,
  notify,
  PageFrame,
  SCREENS,
  seesAllMerchants,
  useOpenView,
  useSelectedMerchant,
  useTimezone,
  useUser,
  ViewsBar,
  WatchlistStrip,
  type AppliedView,
  type User,
} from '@paygate/sdk';
import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { collabNamer, useCollabs } from '../../../api/get-collabs';
import { CollabSelect } from '../../../components/collab-select';
import { toBulkFilter } from '../api/bulk-actions';
import { useTransactions, type TransactionsInput } from '../api/get-transactions';
import type { Transaction } from '../api/types';
import { useManualAction, type ManualKind } from '../hooks/use-manual-action';
import { useTransactionStream } from '../hooks/use-transaction-stream';
import { defaultRange } from '../../../utils/date-range';
import { logSearchFromTransaction } from '../utils/log-search';
import { manualQuestion } from '../utils/manual-confirm';
import { DEFAULT_PAGE_SIZE, PAGE_SIZES, parseFilters, serializeFilters, type Filters } from '../utils/query-state';
import { paymentMethodType, searchTarget } from '../utils/search';
import { statusLabel } from '../../../utils/status';
import { needsTotals, TOTAL_CURRENCIES, totalFor, type TotalCurrency } from '../utils/totals';
import { AdditionalDataDialog } from './additional-data-dialog';
import { CallbackAttemptsDialog } from './callback-attempts-dialog';
import { EditTransactionDialog } from './edit-transaction-dialog';
import { exportScope, ExportTransactionsButton, transactionExportScope, useExportWizard } from './export-transactions-button';
import { BulkActionsMenu } from './bulk-actions-menu';
import { FilterBar } from './filter-bar';
import { PinWatchlistDialog } from './pin-watchlist-dialog';
import { SearchInLogsDialog } from './search-in-logs-dialog';
import { TransactionLogsDialog } from './transaction-logs-dialog';
import { TransactionsTable, type RowDialog } from './transactions-table';

/**
 * Watchlists are newer than some hosts this remote may run on
 * (docs/console-releases.md rule 4): the SDK is the host's, so the strip and
 * the Pin button show only where the host's route table has the Alerts
 * screen (the same release as the SDK's watchlist pieces).
 */
const hostHasWatchlists = 'alerts' in SCREENS;

/** watchlistFilter is the list call's filter as a watchlist keeps it: no paging, no date range (the window replaces it), no empty values. */
export function watchlistFilter(input: TransactionsInput): Record<string, unknown> {
  const { page: _page, take: _take, from: _from, to: _to, includeTotalAmounts: _totals, statuses, ...rest } = input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined && v !== '' && v !== 0) out[k] = v;
  if (statuses?.length) out.statuses = statuses.map(String);
  return out;
}

/**
 * viewQueryOf writes the page's filters as a saved view keeps them
 * (docs/contracts-views.md): the page's query string without the page and
 * the page size (the view's pageSize keeps that), the collab as `collabId`,
 * the name the server checks against the caller's scope when the view opens.
 */
export function viewQueryOf(f: Filters): URLSearchParams {
  const p = serializeFilters({ ...f, currentPage: 1, pageSize: DEFAULT_PAGE_SIZE });
  const collab = p.get('selectedCollabId');
  if (collab !== null) {
    p.delete('selectedCollabId');
    p.set('collabId', collab);
  }
  return p;
}

/** viewQueryOfUrl reads the filters a saved view keeps from the page's URL query (the Views bar reads the URL at a click). */
const viewQueryOfUrl = (query: URLSearchParams) => viewQueryOf(parseFilters(query));

/** paramsOfView is the page's query string that opens a view: `view`, then the view's filters and page size as the page writes them. */
export function paramsOfView(v: AppliedView): URLSearchParams {
  const q = new URLSearchParams(v.query);
  const collab = q.get('collabId');
  q.delete('collabId');
  if (collab !== null) q.set('selectedCollabId', collab);
  const f = parseFilters(q);
  if ((PAGE_SIZES as readonly number[]).includes(v.pageSize)) f.pageSize = v.pageSize;
  return new URLSearchParams([['view', v.id], ...serializeFilters(f).entries()]);
}

/** How often the list refreshes while the page is visible and the live stream is not connected. */
export const REFRESH_MS = 10_000;

/** TransactionsPage is the Transactions screen (route /transactions/:id?, spec 02 §2). */
export function TransactionsPage() {
  const user = useUser();
  if (!hasPermission(user, 'Get Transactions')) return <NoPermission />;
  return <TransactionsView user={user} />;
}

/** toListInput builds the list call from the page state (exported for tests). */
export function toListInput(f: Filters, search: string, range: { from: string; to: string }, merchantId: number | null): TransactionsInput {
  const target = searchTarget(search);
  const base = { collabId: f.selectedCollabId ?? 0, page: f.currentPage, take: f.pageSize, merchantId: merchantId ?? undefined };
  // A free-text search leaves every filter out, the date range included; otherwise a range (the chosen or the default one) is always sent.
  if (target.kind !== 'none') return { ...base, includeTotalAmounts: f.selectedCollabId !== null, search: target.kind === 'id' ? target.id : target.reference };
  return withFilters({ ...base, includeTotalAmounts: needsTotals(f, { dateSet: true }) }, f, range);
}

function withFilters(base: TransactionsInput, f: Filters, range: { from: string; to: string }): TransactionsInput {
  return {
    ...base,
    type: f.transactionTypeFilter,
    statuses: f.transactionStatusesFilter,
    providerTid: f.providerTidFilter,
    merchantCid: f.merchantCidFilter,
    nonce: f.nonceFilter,
    from: range.from,
    to: range.to,
    minAmount: f.minAmountFilter,
    maxAmount: f.maxAmountFilter,
    currency: f.currencyFilter,
    paymentMethodValue: f.paymentMethodValueFilter,
    paymentMethodType: paymentMethodType(f.paymentMethodValueFilter),
    paymentIpAddress: f.paymentIpAddressFilter,
  };
}

function TransactionsView({ user }: { user: User | null }) {
  const { id: routeSearch = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const filters = useMemo(() => parseFilters(params), [params]);
  const [zone] = useTimezone();
  const [merchantFilter] = useSelectedMerchant();
  const admin = seesAllMerchants(user);
  const [now] = useState(() => new Date());
  const range = filters.dateRange ?? defaultRange(now, zone);
  const [searchDraft, setSearchDraft] = useState(routeSearch);
  const [seenSearch, setSeenSearch] = useState(routeSearch);
  if (seenSearch !== routeSearch) {
    setSeenSearch(routeSearch);
    setSearchDraft(routeSearch);
  }
  const [currency, setCurrency] = useState<TotalCurrency>('PHP');
  const [dialog, setDialog] = useState<{ kind: RowDialog; t: Transaction } | null>(null);
  const [logSearch, setLogSearch] = useState(false);
  const [pinning, setPinning] = useState(false);
  // A manual status action waits for the operator's confirmation (it changes money state and stops callbacks).
  const [confirming, setConfirming] = useState<{ kind: ManualKind; t: Transaction } | null>(null);

  const collabs = useCollabs({});
  const input = toListInput(filters, routeSearch, range, admin ? null : merchantFilter);
  const live = useTransactionStream(true);
  const list = useTransactions(input, live ? false : REFRESH_MS);
  const manual = useManualAction();
  const exporter = useExportWizard();

  // The query last written or rendered: two quick changes (a text filter applied with Enter, then
  // the type) build on each other even before the router has rendered the first one (its
  // navigations render in a transition, so a handler may still hold the previous render's filters).
  const latest = useRef(params);
  useEffect(() => {
    latest.current = params;
  }, [params]);
  // Every filter change keeps the open view (it then shows as edited).
  const update = (patch: Partial<Filters>) => {
    const current = latest.current;
    const next = keepView(serializeFilters({ ...parseFilters(current), currentPage: 1, ...patch }), current);
    latest.current = next;
    setParams(next);
  };
  const viewFilters = useMemo(() => viewQueryOf(filters), [filters]);
  const applyView = useCallback((v: AppliedView) => setParams(paramsOfView(v), { replace: true }), [setParams]);
  const openView = useOpenView('transactions', user, viewFilters);
  // A watchlist pinned from the open, unedited view links back to it.
  const pinViewId = openView.view && !openView.edited ? openView.viewId : undefined;

  const searchFilled = routeSearch.trim() !== '';
  const submitSearch = (e: FormEvent) => {
    e.preventDefault();
    const text = searchDraft.trim();
    const qs = keepView(serializeFilters({ ...filters, currentPage: 1 }), params).toString();
    void navigate(`/transactions${text ? `/${encodeURIComponent(text)}` : ''}${qs ? `?${qs}` : ''}`);
  };

  const failure = list.isError ? errorMessage(list.error, 'Unknown error') : null;
  useEffect(() => {
    if (failure) notify.error(`Failed to fetch transactions: ${failure}`);
  }, [failure]);

  const data = list.data;
  const totalsRequested = input.includeTotalAmounts === true;
  // While a new page loads, the previous answer stays on screen: it may have been asked without totals, so it says nothing about them.
  const fresh = !!data && !list.isPlaceholderData;
  const summary = data && totalsRequested ? totalFor(data.totalAmounts, currency, data.totalCount) : null;
  const totalsMissing = fresh && totalsRequested && data.totalCount > 0 && summary === null;
  useEffect(() => {
    if (totalsMissing) notify.warning(`Total amount for ${currency} is not available`);
  }, [totalsMissing, currency]);

  return (
    <PageFrame
      title={SCREENS.transactions.title}
      actions={
        <HStack gap="2">
          {mayCall(user, 'POST /api/v1/transactions/search-in-logs') && (
            <Button size="sm" variant="outline" onClick={() => setLogSearch(true)}>
              Search in Logs
            </Button>
          )}
          {hostHasWatchlists && mayCall(user, 'POST /api/v1/watchlists') && (
            <Button size="sm" variant="outline" onClick={() => setPinning(true)}>
              Pin as watchlist
            </Button>
          )}
          <ExportTransactionsButton user={user} loading={exporter.loading} onOpen={() => exporter.open(exportScope(input, { collabs: collabs.data, admin, zone }))} />
          <BulkActionsMenu
            user={user}
            filter={toBulkFilter(input)}
            statusName={statusLabel}
            collabName={(id) => collabNamer(collabs.data, admin)(id)}
            onExport={() => exporter.open(exportScope(input, { collabs: collabs.data, admin, zone }))}
          />
        </HStack>
      }
    >
      {hostHasWatchlists && <WatchlistStrip enabled={mayCall(user, 'GET /api/v1/watchlists')} />}
      {pinning && (
        <PinWatchlistDialog
          filter={watchlistFilter(input)}
          query={serializeFilters({ ...filters, dateRange: null, currentPage: 1 }).toString()}
          viewId={pinViewId}
          currencies={TOTAL_CURRENCIES}
          onClose={() => setPinning(false)}
        />
      )}
      <HStack gap="3" align="end" wrap="wrap">
        <CollabSelect
          admin={admin}
          collabs={collabs.data}
          value={filters.selectedCollabId}
          onChange={(id) => update({ selectedCollabId: id })}
          loading={collabs.isPending}
          label={admin ? 'Collab' : 'Provider'}
        />
        <form onSubmit={submitSearch} role="search" aria-label="Search transactions">
          <HStack align="end">
            <Field.Root w="80">
              <Field.Label>Search</Field.Label>
              <Input size="sm" placeholder="Transaction ID or Reference ID" value={searchDraft} onChange={(e) => setSearchDraft(e.target.value)} />
            </Field.Root>
            <Button size="sm" type="submit">
              Search
            </Button>
            {searchFilled && (
              <Button
                size="sm"
                variant="outline"
                onClick={() => {
                  const qs = params.toString();
                  void navigate(`/transactions${qs ? `?${qs}` : ''}`);
                }}
              >
                Clear Search
              </Button>
            )}
          </HStack>
        </form>
      </HStack>

      {/* The saved views sit on the filters' last line (a line of their own would push the list below a 768 px fold). */}
      <FilterBar
        filters={filters}
        range={range}
        zone={zone}
        disabled={searchFilled}
        onChange={update}
        aside={<ViewsBar list="transactions" user={user} filterParams={viewFilters} filterParamsOf={viewQueryOfUrl} layout={{ pageSize: filters.pageSize }} onApply={applyView} />}
      />

      <HStack justify="space-between" wrap="wrap" borderWidth="1px" borderRadius="md" p="3" aria-label="Totals" role="group">
        <HStack gap="6">
          <Text>
            Total: <strong>{summary ? formatMoney(summary.total, currency) : '-'}</strong>
          </Text>
          <Text>
            Average: <strong>{summary ? formatMoney(summary.average, currency) : '-'}</strong>
          </Text>
          <Text color="fg.muted">{data ? `${data.totalCount} transactions` : ''}</Text>
          <Text fontSize="xs" color={live ? 'green.fg' : 'fg.muted'} aria-label="Live updates">
            {live ? '● Live' : '○ Refreshing every 10 s'}
          </Text>
          {/* Read from a replica that lags (docs/operations.md, "Read replica"): the list may miss the last seconds' changes. */}
          <Text fontSize="xs" color="orange.fg" role="status" aria-label="Data lag">
            {data && data.dataLagSeconds > 0 ? `Data may be up to ${data.dataLagSeconds} s behind.` : ''}
          </Text>
        </HStack>
        <NativeSelect.Root size="sm" w="28">
          <NativeSelect.Field aria-label="Totals currency" value={currency} onChange={(e) => setCurrency(e.target.value as TotalCurrency)}>
            {TOTAL_CURRENCIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
      </HStack>

      <TransactionsTable
        transactions={data?.transactions ?? []}
        loading={list.isPending}
        error={failure && `Failed to fetch transactions: ${failure}`}
        onRetry={() => void list.refetch()}
        pagination={{
          label: 'Transactions pages',
          page: filters.currentPage,
          totalPages: data?.totalPages ?? 0,
          pageSize: filters.pageSize,
          pageSizes: PAGE_SIZES,
          onPage: (page) => update({ currentPage: page }),
          onPageSize: (size) => update({ pageSize: size }),
        }}
        user={user}
        zone={zone}
        busyId={manual.busy}
        onDialog={(kind, t) => (kind === 'export' ? exporter.open(transactionExportScope(t, collabs.data, admin)) : setDialog({ kind, t }))}
        onManual={(kind, t) => setConfirming({ kind, t })}
      />

      {dialog?.kind === 'logs' && <TransactionLogsDialog id={dialog.t.id} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'callbacks' && <CallbackAttemptsDialog id={dialog.t.id} onClose={() => setDialog(null)} />}
      {dialog?.kind === 'data' && <AdditionalDataDialog transaction={dialog.t} onClose={() => setDialog(null)} />}
      {logSearch && <SearchInLogsDialog onClose={() => setLogSearch(false)} />}
      {dialog?.kind === 'searchInLogs' && <SearchInLogsDialog initial={logSearchFromTransaction(dialog.t, zone, new Date())} onClose={() => setDialog(null)} />}
      {exporter.dialog}
      {confirming && (
        <ConfirmDialog
          {...manualQuestion(confirming.kind, confirming.t)}
          pending={manual.busy === confirming.t.id}
          onCancel={() => setConfirming(null)}
          onConfirm={() => {
            const { kind, t } = confirming;
            void manual.run(kind, t).finally(() => setConfirming(null));
          }}
        />
      )}
      {dialog?.kind === 'edit' && <EditTransactionDialog transaction={dialog.t} onClose={() => setDialog(null)} />}
    </PageFrame>
  );
}
