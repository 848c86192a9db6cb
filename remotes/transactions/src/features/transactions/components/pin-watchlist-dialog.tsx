import { Button, Checkbox, Field, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, errorMessage, notify, WATCHLIST_WINDOWS, watchlistWindowWords } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { createWatchlistInput, useCreateWatchlist } from '../api/create-watchlist';

/** PinWatchlistDialogProps configure the Pin as watchlist dialog. */
export interface PinWatchlistDialogProps {
  /** The list's current filter (without paging and without the date range, which the window replaces). */
  filter: Record<string, unknown>;
  /** The page's query string for the deep link. */
  query: string;
  /** The open, unedited saved view the filters come from: the watchlist then links to it. */
  viewId?: string;
  /** The currencies offered for a sum threshold. */
  currencies: readonly string[];
  onClose: () => void;
}

/**
 * PinWatchlistDialog pins the Transactions page's current filter as a live
 * watchlist: a name, what to count, the rolling window, and an optional
 * threshold whose crossing raises an alert.
 */
export function PinWatchlistDialog({ filter, query, viewId, currencies, onClose }: PinWatchlistDialogProps) {
  const create = useCreateWatchlist();
  const [name, setName] = useState('');
  const [metric, setMetric] = useState<'count' | 'sum' | 'successRate'>('count');
  const [windowMinutes, setWindowMinutes] = useState(15);
  const [alerting, setAlerting] = useState(false);
  const [comparison, setComparison] = useState<'above' | 'below'>('above');
  const [value, setValue] = useState('');
  const [currency, setCurrency] = useState(currencies[0] ?? 'PHP');
  const [problems, setProblems] = useState<Record<string, string>>({});

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const input = {
      name,
      metric,
      windowMinutes,
      filter,
      query,
      viewId,
      threshold: alerting ? { comparison, value, currency: metric === 'sum' ? currency : undefined } : undefined,
    };
    const parsed = createWatchlistInput.safeParse(input);
    if (!parsed.success) {
      setProblems(Object.fromEntries(parsed.error.issues.map((i) => [i.path.join('.'), i.message])));
      return;
    }
    setProblems({});
    create.mutate(parsed.data, {
      onSuccess: () => {
        notify.success('Watchlist pinned');
        onClose();
      },
      onError: (err) => notify.error('Failed to pin the watchlist', errorMessage(err, 'Unknown error')),
    });
  };

  return (
    <DialogFrame
      title="Pin as watchlist"
      onClose={onClose}
      size="md"
      footer={
        <HStack gap="2">
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button type="submit" form="pin-watchlist" loading={create.isPending}>
            Pin
          </Button>
        </HStack>
      }
    >
      <form id="pin-watchlist" onSubmit={submit} noValidate>
        <Stack gap="4">
          <Text fontSize="sm" color="fg.muted">
            Counts the transactions matching the page's current filters that were created in a rolling window (the window replaces the page's date range).
          </Text>
          <Field.Root required invalid={!!problems.name}>
            <Field.Label>Name</Field.Label>
            <Input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
            <Field.ErrorText>{problems.name}</Field.ErrorText>
          </Field.Root>
          <HStack gap="3" align="start">
            <Field.Root>
              <Field.Label>Metric</Field.Label>
              <NativeSelect.Root size="sm">
                <NativeSelect.Field value={metric} onChange={(e) => setMetric(e.target.value as typeof metric)}>
                  <option value="count">Count</option>
                  <option value="sum">Sum per currency</option>
                  <option value="successRate">Success rate</option>
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
            </Field.Root>
            <Field.Root>
              <Field.Label>Window</Field.Label>
              <NativeSelect.Root size="sm">
                <NativeSelect.Field value={String(windowMinutes)} onChange={(e) => setWindowMinutes(Number(e.target.value))}>
                  {WATCHLIST_WINDOWS.map((m) => (
                    <option key={m} value={String(m)}>
                      Last {watchlistWindowWords(m)}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
            </Field.Root>
          </HStack>
          <Checkbox.Root checked={alerting} onCheckedChange={(e) => setAlerting(!!e.checked)}>
            <Checkbox.HiddenInput />
            <Checkbox.Control />
            <Checkbox.Label>Alert me when it crosses a threshold</Checkbox.Label>
          </Checkbox.Root>
          {alerting && (
            <HStack gap="3" align="start">
              <Field.Root>
                <Field.Label>When the value is</Field.Label>
                <NativeSelect.Root size="sm">
                  <NativeSelect.Field value={comparison} onChange={(e) => setComparison(e.target.value as typeof comparison)}>
                    <option value="above">Above</option>
                    <option value="below">Below</option>
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
              </Field.Root>
              <Field.Root required invalid={!!problems['threshold.value']}>
                <Field.Label>Threshold{metric === 'successRate' ? ' (%)' : ''}</Field.Label>
                <Input size="sm" inputMode="decimal" value={value} onChange={(e) => setValue(e.target.value)} />
                <Field.ErrorText>{problems['threshold.value']}</Field.ErrorText>
              </Field.Root>
              {metric === 'sum' && (
                <Field.Root invalid={!!problems['threshold.currency']}>
                  <Field.Label>Currency</Field.Label>
                  <NativeSelect.Root size="sm">
                    <NativeSelect.Field value={currency} onChange={(e) => setCurrency(e.target.value)}>
                      {currencies.map((c) => (
                        <option key={c} value={c}>
                          {c}
                        </option>
                      ))}
                    </NativeSelect.Field>
                    <NativeSelect.Indicator />
                  </NativeSelect.Root>
                  <Field.ErrorText>{problems['threshold.currency']}</Field.ErrorText>
                </Field.Root>
              )}
            </HStack>
          )}
        </Stack>
      </form>
    </DialogFrame>
  );
}
