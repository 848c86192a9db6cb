import { Alert, Badge, Button, Field, HStack, Input, Link, NativeSelect, Stack, Text, Wrap } from '@chakra-ui/react';
import { DataTable, DialogFrame, errorMessage, formatDateTime, notify, useTimezone, type DataColumn } from '@paygate/sdk';
import { useState } from 'react';
import { useSearchInLogs, type LogSearchHit } from '../api/search-in-logs';
import { defaultLogSearch, DURATIONS, logSearchRequest, type LogSearchForm } from '../utils/log-search';
import { statusLabel, TRANSACTION_TYPES } from '../../../utils/status';

const PAGE = 20;

function columns(zone: string): DataColumn<LogSearchHit>[] {
  return [
    {
      key: 'id',
      header: 'ID',
      cell: (h) => (
        <Link href={`/transactions/${h.id}`} target="_blank" rel="noopener" color="blue.fg">
          {h.id}
        </Link>
      ),
    },
    { key: 'merchant', header: 'Merchant / Provider', cell: (h) => `${h.merchantName} / ${h.providerName}` },
    { key: 'client', header: 'Client ID', cell: (h) => h.merchantClientId },
    { key: 'amount', header: 'Amount', cell: (h) => `${h.amount} ${h.currency}` },
    { key: 'status', header: 'Status', cell: (h) => statusLabel(h.transactionStatus) },
    { key: 'created', header: 'Created', cell: (h) => formatDateTime(h.createdUtc, zone) },
    {
      key: 'match',
      header: 'Match',
      cell: (h) => (
        <>
          <Badge colorPalette={h.matchScore === 1 ? 'green' : 'orange'}>{h.matchScore === 1 ? 'Exact' : 'Partial'}</Badge> {h.matchedJsonKey} ({h.jsonSource})
        </>
      ),
    },
  ];
}

/**
 * SearchInLogsDialog is the full-screen "Search Transactions in Logs" dialog
 * (spec 02 §2, §5); a row's button opens it with `initial` filled from the row.
 */
export function SearchInLogsDialog({ onClose, initial }: { onClose: () => void; initial?: LogSearchForm }) {
  const [zone] = useTimezone();
  const [form, setForm] = useState<LogSearchForm>(() => initial ?? defaultLogSearch(new Date(), zone));
  const [hits, setHits] = useState<LogSearchHit[] | null>(null);
  const [pageIndex, setPageIndex] = useState(0);
  const search = useSearchInLogs();
  const checked = logSearchRequest(form, zone, new Date());
  const set = (patch: Partial<LogSearchForm>) => setForm({ ...form, ...patch });

  async function run() {
    if (!checked.ok) return;
    try {
      const res = await search.mutateAsync(checked.request);
      setHits(res.transactions);
      setPageIndex(0);
      if (res.transactions.length === 0) notify.info('No Results', 'No transactions matched the search');
    } catch (err) {
      notify.error('Search Failed', errorMessage(err, 'Failed to search transactions'));
    }
  }

  const partial = hits?.some((h) => h.matchScore === 2) ?? false;
  const pages = Math.max(1, Math.ceil((hits?.length ?? 0) / PAGE));
  const shown = hits?.slice(pageIndex * PAGE, pageIndex * PAGE + PAGE) ?? [];

  return (
    <DialogFrame
      title="Search Transactions in Logs"
      onClose={onClose}
      size="full"
      footer={
        <HStack>
          <Button colorPalette="blue" disabled={!checked.ok || search.isPending} loading={search.isPending} onClick={() => void run()}>
            Search
          </Button>
          <Button
            variant="outline"
            onClick={() => {
              setForm(defaultLogSearch(new Date(), zone));
              setHits(null);
              search.reset();
            }}
          >
            Clear
          </Button>
          <Button variant="ghost" onClick={onClose}>
            Close
          </Button>
        </HStack>
      }
    >
      <Stack gap="4">
        <Wrap gap="3" align="end">
          <Field.Root w="44" required>
            <Field.Label>Transaction Type</Field.Label>
            <NativeSelect.Root size="sm">
              <NativeSelect.Field value={form.transactionType} onChange={(e) => set({ transactionType: e.target.value })}>
                <option value="">Select type</option>
                {TRANSACTION_TYPES.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <Field.Root w="72" required>
            <Field.Label>Search Term</Field.Label>
            <Input size="sm" maxLength={300} value={form.searchTerm} onChange={(e) => set({ searchTerm: e.target.value })} />
          </Field.Root>
          <Field.Root w="56" required>
            <Field.Label>Start</Field.Label>
            <Input size="sm" type="datetime-local" step={60} value={form.start} onChange={(e) => set({ start: e.target.value })} />
            <Field.HelperText>Start 5 minutes before the receipt time</Field.HelperText>
          </Field.Root>
          <Field.Root w="36" required>
            <Field.Label>Duration</Field.Label>
            <NativeSelect.Root size="sm">
              <NativeSelect.Field value={form.duration} onChange={(e) => set({ duration: Number(e.target.value) })}>
                {DURATIONS.map((d) => (
                  <option key={d} value={d}>
                    {d} minutes
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <Field.Root w="32">
            <Field.Label>Amount</Field.Label>
            <Input size="sm" inputMode="decimal" value={form.amount} onChange={(e) => set({ amount: e.target.value })} />
          </Field.Root>
          <Field.Root w="28">
            <Field.Label>Currency</Field.Label>
            <Input size="sm" maxLength={10} value={form.currency} onChange={(e) => set({ currency: e.target.value.toUpperCase() })} />
          </Field.Root>
          <Field.Root w="48">
            <Field.Label>Merchant Client ID</Field.Label>
            <Input size="sm" maxLength={120} value={form.merchantClientId} onChange={(e) => set({ merchantClientId: e.target.value })} />
          </Field.Root>
        </Wrap>
        {!checked.ok && form.searchTerm !== '' && (
          <Text fontSize="sm" color="red.fg">
            {checked.errors.join(' ')}
          </Text>
        )}
        {partial && (
          <Alert.Root status="error">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>Partial Matches Detected</Alert.Title>
              <Alert.Description>Some results only partially match the search term. Verify the amount and time before acting on them.</Alert.Description>
            </Alert.Content>
          </Alert.Root>
        )}
        {!search.isIdle && (
          <DataTable
            label="Log search results"
            columns={columns(zone)}
            rows={shown}
            rowKey={(h) => h.id}
            loading={search.isPending}
            empty="No transactions matched the search"
            error={search.isError ? errorMessage(search.error, 'Failed to search transactions') : null}
            onRetry={() => void run()}
            pagination={pages > 1 ? { label: 'Log search results pages', page: pageIndex + 1, totalPages: pages, totalCount: hits?.length ?? 0, onPage: (p) => setPageIndex(p - 1) } : undefined}
          />
        )}
      </Stack>
    </DialogFrame>
  );
}
