import { Button, Checkbox, Field, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UpdateWatchlistResponseJson } from '@paygate/gen/gateway/v1/watchlists_pb';
import { useState, type FormEvent } from 'react';
import { errorMessage } from './api-error';
import { ConfirmDialog } from './confirm-dialog';
import { api } from './console';
import { DialogFrame } from './dialog-frame';
import { notify } from './toast';
import { thresholdProblem, WATCHLIST_VALUES_KEY, WATCHLIST_WINDOWS, watchlistWindowWords, WATCHLISTS_KEY, type Watchlist } from './watchlists';

// Changing and unpinning a pinned watchlist from its card in the strip
// (PUT and DELETE /api/v1/watchlists/{id}, docs/contracts-watchlists.md).
// Internal to the SDK: the strip is what the pages use.

/** watchlistPath is a watchlist's REST path. */
const watchlistPath = (id: string) => `/api/v1/watchlists/${encodeURIComponent(id)}`;

function useWatchlistChanged() {
  const client = useQueryClient();
  return () => {
    void client.invalidateQueries({ queryKey: WATCHLISTS_KEY });
    void client.invalidateQueries({ queryKey: WATCHLIST_VALUES_KEY });
  };
}

/**
 * EditWatchlistDialog changes a watchlist's name, window and threshold; its
 * filter and metric stay (pin the list again for another filter). A changed
 * window or threshold re-arms it.
 */
export function EditWatchlistDialog({ watchlist: w, onClose }: { watchlist: Watchlist; onClose: () => void }) {
  const changed = useWatchlistChanged();
  const [name, setName] = useState(w.name ?? '');
  const [windowMinutes, setWindowMinutes] = useState(w.windowMinutes ?? 15);
  const [alerting, setAlerting] = useState(!!w.threshold?.comparison);
  const [comparison, setComparison] = useState(w.threshold?.comparison === 'below' ? 'below' : 'above');
  const [value, setValue] = useState(w.threshold?.value ?? '');
  const [currency, setCurrency] = useState(w.threshold?.currency ?? '');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: async () =>
      (
        await api.request<UpdateWatchlistResponseJson>('gateway', watchlistPath(w.id ?? ''), {
          method: 'PUT',
          body: {
          name: name.trim(),
          filter: w.filter ?? {},
          viewId: w.viewId,
          query: w.query ?? '',
          metric: w.metric,
          windowMinutes,
          threshold: alerting ? { comparison, value: value.trim(), currency: w.metric === 'sum' ? currency.trim().toUpperCase() : undefined } : undefined,
          },
        })
      ).watchlist,
    onSuccess: changed,
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found: Record<string, string> = {};
    if (name.trim() === '') found.name = 'Name is required.';
    if (alerting) {
      const p = thresholdProblem(w.metric, value);
      if (p) found.value = p;
      if (w.metric === 'sum' && !/^[A-Za-z]{3}$/.test(currency.trim())) found.currency = 'Enter the currency whose sum is compared, such as PHP.';
    }
    setProblems(found);
    if (Object.keys(found).length > 0) return;
    save.mutate(undefined, {
      onSuccess: () => {
        notify.success('Watchlist saved');
        onClose();
      },
      onError: (err) => notify.error('Failed to save the watchlist', errorMessage(err, 'Unknown error')),
    });
  };
  return (
    <DialogFrame
      title="Edit watchlist"
      onClose={onClose}
      size="md"
      dismissible={!save.isPending}
      footer={
        <HStack gap="2">
          <Button variant="outline" onClick={onClose} disabled={save.isPending}>
            Cancel
          </Button>
          <Button type="submit" form="edit-watchlist" loading={save.isPending}>
            Save
          </Button>
        </HStack>
      }
    >
      <form id="edit-watchlist" onSubmit={submit} noValidate>
        <Stack gap="4">
          <Text fontSize="sm" color="fg.muted">
            Its filter and what it counts stay as pinned; a new window or threshold re-arms its alert.
          </Text>
          <Field.Root required invalid={!!problems.name}>
            <Field.Label>Name</Field.Label>
            <Input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
            <Field.ErrorText>{problems.name}</Field.ErrorText>
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
                  <NativeSelect.Field value={comparison} onChange={(e) => setComparison(e.target.value === 'below' ? 'below' : 'above')}>
                    <option value="above">Above</option>
                    <option value="below">Below</option>
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
              </Field.Root>
              <Field.Root required invalid={!!problems.value}>
                <Field.Label>Threshold{w.metric === 'successRate' ? ' (%)' : ''}</Field.Label>
                <Input size="sm" inputMode="decimal" value={value} onChange={(e) => setValue(e.target.value)} />
                <Field.ErrorText>{problems.value}</Field.ErrorText>
              </Field.Root>
              {w.metric === 'sum' && (
                <Field.Root required invalid={!!problems.currency}>
                  <Field.Label>Currency</Field.Label>
                  <Input size="sm" value={currency} maxLength={3} onChange={(e) => setCurrency(e.target.value)} />
                  <Field.ErrorText>{problems.currency}</Field.ErrorText>
                </Field.Root>
              )}
            </HStack>
          )}
        </Stack>
      </form>
    </DialogFrame>
  );
}

/** UnpinWatchlistDialog removes a watchlist after the user confirms; its alerts stay in the history. */
export function UnpinWatchlistDialog({ watchlist: w, onClose }: { watchlist: Watchlist; onClose: () => void }) {
  const changed = useWatchlistChanged();
  const remove = useMutation({
    mutationFn: () => api.request<unknown>('gateway', watchlistPath(w.id ?? ''), { method: 'DELETE' }),
    onSuccess: changed,
  });
  return (
    <ConfirmDialog
      title="Unpin Watchlist"
      message={`Unpin the watchlist "${w.name ?? ''}"? Its counter stops; the alerts it raised stay in the history.`}
      confirmLabel="Unpin"
      destructive
      pending={remove.isPending}
      onCancel={onClose}
      onConfirm={() =>
        remove.mutate(undefined, {
          onSuccess: () => {
            notify.success('Watchlist unpinned');
            onClose();
          },
          onError: (err) => notify.error('Failed to unpin the watchlist', errorMessage(err, 'Unknown error')),
        })
      }
    />
  );
}
