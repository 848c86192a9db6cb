import { Badge, Box, Button, Card, HStack, Skeleton, Stack, Text } from '@chakra-ui/react';
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AlertJson, ListAlertsResponseJson, ListWatchlistsResponseJson, GetWatchlistValuesResponseJson, WatchlistJson, WatchlistValueJson } from '@paygate/gen/gateway/v1/watchlists_pb';
import { useEffect, useRef, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { api, session, useUser } from './console';
import { mayCall } from './may-call';
import { EditWatchlistDialog, UnpinWatchlistDialog } from './watchlist-edit';
import { formatMoney } from './money';
import { toaster } from './toast';
import { STREAM_RECONNECT_MS, TRANSACTION_STREAM_PATH } from './transaction-stream';

// Live watchlists and alerts (issue 29, docs/contracts-watchlists.md): the
// pieces both the shell (Dashboard, sidebar badge, alert toasts) and the
// transactions remote (its strip, the Alerts page) use.

export type Watchlist = WatchlistJson;
export type WatchlistValue = WatchlistValueJson;
export type WatchlistAlert = AlertJson;

/** The query keys of the watchlists and alerts (the stream updates them). */
export const WATCHLISTS_KEY = ['watchlists'] as const;
export const WATCHLIST_VALUES_KEY = ['watchlists', 'values'] as const;
export const ALERTS_KEY = ['alerts'] as const;
export const UNACKNOWLEDGED_ALERTS_KEY = ['alerts', 'unacknowledged-count'] as const;

/** watchlistsQuery reads the signed-in user's watchlists (GET /api/v1/watchlists). */
export const watchlistsQuery = () =>
  queryOptions({
    queryKey: WATCHLISTS_KEY,
    queryFn: async ({ signal }) => (await api.get<ListWatchlistsResponseJson>('gateway', '/api/v1/watchlists', { signal })).watchlists ?? [],
  });

/** watchlistValuesQuery reads their current values (GET /api/v1/watchlists/values). */
export const watchlistValuesQuery = () =>
  queryOptions({
    queryKey: WATCHLIST_VALUES_KEY,
    queryFn: async ({ signal }) => (await api.get<GetWatchlistValuesResponseJson>('gateway', '/api/v1/watchlists/values', { signal })).values ?? [],
  });

/** unacknowledgedAlertsQuery reads how many alerts the user has not acknowledged (the sidebar badge). */
export const unacknowledgedAlertsQuery = () =>
  queryOptions({
    queryKey: UNACKNOWLEDGED_ALERTS_KEY,
    queryFn: async ({ signal }) =>
      Number((await api.get<ListAlertsResponseJson>('gateway', '/api/v1/alerts', { signal, query: { pageSize: 1, unacknowledged: true } })).unacknowledgedCount ?? 0),
    staleTime: 30_000,
  });

/** A message of the live stream for the signed-in user. */
export type LiveMessage = { type: 'watchlist'; value: WatchlistValue } | { type: 'alert'; alert: WatchlistAlert };

type Listener = (m: LiveMessage) => void;
const listeners = new Set<Listener>();
let source: EventSource | null = null;
let reconnect: ReturnType<typeof setTimeout> | undefined;

function connect() {
  const token = session.getState().accessToken;
  if (listeners.size === 0 || source || !token || typeof EventSource === 'undefined') return;
  const s = new EventSource(api.url('gateway', TRANSACTION_STREAM_PATH, { access_token: token }));
  source = s;
  const emit = (m: LiveMessage) => listeners.forEach((l) => l(m));
  s.addEventListener('watchlist', (e) => {
    try {
      emit({ type: 'watchlist', value: JSON.parse((e as MessageEvent<string>).data) as WatchlistValue });
    } catch {
      // a malformed message is skipped; the next value follows within seconds
    }
  });
  s.addEventListener('alert', (e) => {
    try {
      emit({ type: 'alert', alert: JSON.parse((e as MessageEvent<string>).data) as WatchlistAlert });
    } catch {
      // skipped, as above
    }
  });
  const drop = () => {
    s.close();
    if (source === s) source = null;
    clearTimeout(reconnect);
    reconnect = setTimeout(connect, STREAM_RECONNECT_MS);
  };
  s.addEventListener('expired', drop);
  s.onerror = drop;
}

/**
 * subscribeLive adds a listener of the signed-in user's watchlist values and
 * alerts. The console keeps one connection to the stream for all listeners
 * (the SDK is a singleton), open while there is at least one.
 */
export function subscribeLive(listener: Listener): () => void {
  listeners.add(listener);
  connect();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) {
      clearTimeout(reconnect);
      source?.close();
      source = null;
    }
  };
}

/** useLiveMessages calls onMessage for every live message while enabled. */
export function useLiveMessages(enabled: boolean, onMessage: Listener): void {
  const cb = useRef(onMessage);
  useEffect(() => {
    cb.current = onMessage;
  }, [onMessage]);
  useEffect(() => {
    if (!enabled) return;
    return subscribeLive((m) => cb.current(m));
  }, [enabled]);
}

/** useWatchlistValues returns the values, kept current by the stream. */
export function useWatchlistValues(enabled: boolean) {
  const client = useQueryClient();
  const values = useQuery({ ...watchlistValuesQuery(), enabled, refetchInterval: 60_000 });
  useLiveMessages(enabled, (m) => {
    if (m.type === 'alert') {
      void client.invalidateQueries({ queryKey: ALERTS_KEY });
      return;
    }
    client.setQueryData<WatchlistValue[]>(WATCHLIST_VALUES_KEY, (old) => {
      const rest = (old ?? []).filter((v) => v.watchlistId !== m.value.watchlistId);
      const i = (old ?? []).findIndex((v) => v.watchlistId === m.value.watchlistId);
      if (i < 0) return old; // a watchlist this page does not list yet: the next read brings it
      rest.splice(i, 0, m.value);
      return rest;
    });
  });
  return values;
}

/** watchlistLink is a watchlist's deep link: its saved view, else the list with its query. */
export function watchlistLink(w: Pick<Watchlist, 'viewId' | 'query'>): string {
  if (w.viewId && w.viewId !== '0') return `/transactions?view=${w.viewId}`;
  return w.query ? `/transactions?${w.query}` : '/transactions';
}

/** windowLabel says a window in words: '15 min', '1 h', '24 h'. */
export function windowLabel(minutes: number | undefined): string {
  const m = minutes ?? 0;
  return m % 60 === 0 ? `${m / 60} h` : `${m} min`;
}

/** The windows a watchlist may count over, in minutes (5 min to 24 h), as the Pin and Edit dialogs offer them. */
export const WATCHLIST_WINDOWS = [5, 15, 30, 60, 180, 360, 720, 1440] as const;

/** watchlistWindowWords says a window in full words, as the dialogs' choices do: '15 minutes', '1 hour', '24 hours'. */
export function watchlistWindowWords(minutes: number): string {
  return minutes % 60 === 0 ? `${minutes / 60} ${minutes === 60 ? 'hour' : 'hours'}` : `${minutes} minutes`;
}

/**
 * thresholdProblem checks a threshold's value for the watchlist's metric
 * (docs/contracts-watchlists.md): a decimal with at most two places, a whole
 * number for a count, at most 100 for a success rate. '' when it is fine.
 */
export function thresholdProblem(metric: string | undefined, value: string): string {
  const v = value.trim();
  if (!/^\d+(\.\d{1,2})?$/.test(v)) return 'The threshold must be a number such as 50 or 85.5.';
  if (metric === 'count' && !/^\d+$/.test(v)) return 'A count threshold is a whole number.';
  if (metric === 'successRate' && Number(v) > 100) return 'A success rate is at most 100 %.';
  return '';
}

/** watchValueText renders a value for its metric (sum: the threshold's currency first). */
export function watchValueText(w: Pick<Watchlist, 'metric' | 'threshold'>, v: WatchlistValue | undefined): string {
  if (!v) return '—';
  switch (w.metric) {
    case 'sum': {
      const sums = Object.entries(v.sums ?? {});
      if (sums.length === 0) return formatMoney('0', w.threshold?.currency || '');
      const first = w.threshold?.currency;
      sums.sort(([a], [b]) => (a === first ? -1 : b === first ? 1 : a.localeCompare(b)));
      return sums.map(([cur, s]) => formatMoney(s, cur)).join(' · ');
    }
    case 'successRate':
      return v.successRate === undefined || v.successRate === null ? 'No final payments' : `${Number(v.successRate).toFixed(1)} %`;
    default:
      return Number(v.count ?? '0').toLocaleString('en-US');
  }
}

/** thresholdText says a threshold in words: 'above 50', 'below 85 %', 'above 1,000.00 PHP'. */
export function thresholdText(w: Pick<Watchlist, 'metric' | 'threshold'>): string {
  const t = w.threshold;
  if (!t?.comparison) return '';
  const value = w.metric === 'successRate' ? `${t.value} %` : w.metric === 'sum' ? formatMoney(t.value ?? '0', t.currency ?? '') : t.value;
  return `${t.comparison} ${value}`;
}

/** WatchlistStripProps configure a WatchlistStrip. */
export interface WatchlistStripProps {
  /** False where the user may not read transactions: the strip then renders nothing. */
  enabled: boolean;
}

/**
 * WatchlistStrip shows the signed-in user's pinned watchlists as cards (name,
 * value, window, threshold state), live over the stream; a card links to
 * the watchlist's transactions. Nothing shows when the user pinned none.
 */
export function WatchlistStrip({ enabled }: WatchlistStripProps) {
  const watchlists = useQuery({ ...watchlistsQuery(), enabled });
  const values = useWatchlistValues(enabled && (watchlists.data?.length ?? 0) > 0);
  const user = useUser();
  const [changing, setChanging] = useState<{ kind: 'edit' | 'unpin'; w: Watchlist } | null>(null);
  if (!enabled) return null;
  if (watchlists.isPending) return <Skeleton height="20" data-part="watchlists-loading" />;
  if (watchlists.isError)
    return (
      <Text color="fg.error" role="alert">
        The watchlists could not be loaded.
      </Text>
    );
  const list = watchlists.data ?? [];
  if (list.length === 0) return null;
  const byId = new Map((values.data ?? []).map((v) => [v.watchlistId, v]));
  const mayEdit = mayCall(user, 'PUT /api/v1/watchlists/{id}');
  const mayUnpin = mayCall(user, 'DELETE /api/v1/watchlists/{id}');
  return (
    <Box as="section" aria-label="Watchlists">
      <HStack gap="3" wrap="wrap" align="stretch">
        {list.map((w) => {
          const v = byId.get(w.id);
          const crossed = v?.crossed ?? w.crossed ?? false;
          const threshold = thresholdText(w);
          return (
            <Card.Root key={w.id} size="sm" minW="44" variant="outline" borderColor={crossed ? 'border.error' : undefined}>
              <RouterLink to={watchlistLink(w)} aria-label={`${w.name}: ${watchValueText(w, v)} in the last ${windowLabel(w.windowMinutes)}`}>
                <Card.Body gap="1" pb={mayEdit || mayUnpin ? '1' : undefined}>
                  <Text fontSize="sm" color="fg.muted" truncate>
                    {w.name}
                  </Text>
                  <Text fontSize="xl" fontWeight="semibold" data-part="watchlist-value">
                    {values.isPending ? '…' : watchValueText(w, v)}
                  </Text>
                  <Stack direction="row" gap="2" align="center">
                    <Text fontSize="xs" color="fg.muted">
                      Last {windowLabel(w.windowMinutes)}
                    </Text>
                    {threshold && (
                      <Badge size="sm" colorPalette={crossed ? 'red' : 'gray'} data-part="watchlist-threshold">
                        {crossed ? `Alert: ${threshold}` : `Alert when ${threshold}`}
                      </Badge>
                    )}
                  </Stack>
                </Card.Body>
              </RouterLink>
              {(mayEdit || mayUnpin) && (
                <Card.Footer pt="0" gap="1">
                  {mayEdit && (
                    <Button size="2xs" variant="ghost" aria-label={`Edit watchlist ${w.name ?? ''}`} onClick={() => setChanging({ kind: 'edit', w })}>
                      Edit
                    </Button>
                  )}
                  {mayUnpin && (
                    <Button size="2xs" variant="ghost" aria-label={`Unpin watchlist ${w.name ?? ''}`} onClick={() => setChanging({ kind: 'unpin', w })}>
                      Unpin
                    </Button>
                  )}
                </Card.Footer>
              )}
            </Card.Root>
          );
        })}
      </HStack>
      {changing?.kind === 'edit' && <EditWatchlistDialog watchlist={changing.w} onClose={() => setChanging(null)} />}
      {changing?.kind === 'unpin' && <UnpinWatchlistDialog watchlist={changing.w} onClose={() => setChanging(null)} />}
    </Box>
  );
}

/** How long an alert's toast stays (it also stays in the Alerts history). */
export const ALERT_TOAST_MS = 10_000;

const toasted = new Set<string>();

/** alertText says what crossed: 'Pending withdrawals: 51 is above 50 (last 15 min)'. */
export function alertText(a: WatchlistAlert): string {
  const value = a.metric === 'successRate' ? `${a.value} %` : a.metric === 'sum' ? formatMoney(a.value ?? '0', a.currency ?? '') : a.value;
  const threshold = a.metric === 'successRate' ? `${a.threshold} %` : a.metric === 'sum' ? formatMoney(a.threshold ?? '0', a.currency ?? '') : a.threshold;
  return `${a.watchlistName}: ${value} is ${a.comparison} ${threshold} (last ${windowLabel(a.windowMinutes)})`;
}

/**
 * useAlertToasts toasts each alert of the signed-in user once (per alert id,
 * whatever the number of open pages), with a link to the watchlist's
 * transactions, and refreshes the alert counts. The shell calls it once. It
 * listens only while the user has a watchlist with a threshold (no other
 * raises alerts).
 */
export function useAlertToasts(enabled: boolean, open: (to: string) => void): void {
  const client = useQueryClient();
  const watchlists = useQuery({ ...watchlistsQuery(), enabled, retry: false });
  const armed = enabled && (watchlists.data ?? []).some((w) => !!w.threshold?.comparison);
  useLiveMessages(armed, (m) => {
    if (m.type !== 'alert' || !m.alert.id || toasted.has(m.alert.id)) return;
    toasted.add(m.alert.id);
    void client.invalidateQueries({ queryKey: ALERTS_KEY });
    void client.invalidateQueries({ queryKey: WATCHLISTS_KEY });
    const to = watchlistLink(m.alert);
    toaster.create({
      id: `alert:${m.alert.id}`,
      type: 'warning',
      title: 'Watchlist alert',
      description: alertText(m.alert),
      duration: ALERT_TOAST_MS,
      closable: true,
      action: { label: 'Open', onClick: () => open(to) },
    });
  });
}
