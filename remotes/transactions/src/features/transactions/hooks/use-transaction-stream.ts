import { useQueryClient } from '@tanstack/react-query';
import { api, session } from '@paygate/sdk';
import { useEffect, useState } from 'react';

/** The live update stream of docs/contracts-transactions.md ("Live updates"). */
export const STREAM_PATH = '/api/v1/transactions/stream';

/** How long events are gathered before one reload, and the wait before reconnecting. */
const DEBOUNCE_MS = 300;
const RECONNECT_MS = 5_000;

/**
 * useTransactionStream subscribes to the gateway's server-sent events and
 * reloads the transaction queries when a transaction changes (the stream is a
 * hint; the list stays the truth). It tells whether the stream is connected,
 * so the page can poll instead while it is not (or where EventSource does not
 * exist). EventSource cannot set headers, so the token goes in the query, as
 * the contract allows; after `expired` or an error the page's own reload
 * refreshes the token through the API client and the stream reconnects.
 */
export function useTransactionStream(enabled: boolean): boolean {
  const queryClient = useQueryClient();
  const [live, setLive] = useState(false);

  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let reconnect: ReturnType<typeof setTimeout> | undefined;
    let debounce: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const reload = () => {
      clearTimeout(debounce);
      debounce = setTimeout(() => void queryClient.invalidateQueries({ queryKey: ['transactions'] }), DEBOUNCE_MS);
    };

    const connect = () => {
      const token = session.getState().accessToken;
      if (stopped || !token) return;
      source = new EventSource(api.url('gateway', STREAM_PATH, { access_token: token }));
      source.onopen = () => setLive(true);
      source.addEventListener('transaction', reload);
      const drop = () => {
        source?.close();
        source = null;
        setLive(false);
        // Reload now (the API client refreshes an expiring token), then reconnect.
        reload();
        clearTimeout(reconnect);
        reconnect = setTimeout(connect, RECONNECT_MS);
      };
      source.addEventListener('expired', drop);
      source.onerror = drop;
    };

    connect();
    return () => {
      stopped = true;
      clearTimeout(reconnect);
      clearTimeout(debounce);
      source?.close();
      setLive(false);
    };
  }, [enabled, queryClient]);

  return live;
}
