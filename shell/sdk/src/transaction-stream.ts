import { useEffect, useRef, useState } from 'react';
import { api, session } from './console';

/** The gateway's live update stream (docs/contracts-transactions.md, "Live updates"). */
export const TRANSACTION_STREAM_PATH = '/api/v1/transactions/stream';

/** The wait before reconnecting after the stream dropped (the stream's own `retry:`). */
export const STREAM_RECONNECT_MS = 5_000;

/** TransactionStreamOptions tune useTransactionStream. */
export interface TransactionStreamOptions {
  /**
   * Events are coalesced: the first one schedules `onChange` after this wait
   * and the ones arriving meanwhile ride along, so a busy gateway causes at
   * most one call per window.
   */
  coalesceMs: number;
}

/**
 * useTransactionStream subscribes to the gateway's server-sent transaction
 * events while `enabled`, and calls `onChange` (coalesced) when a transaction
 * changed or when the stream dropped (events may have been missed). The
 * stream is a hint; the caller reloads its data, which stays the truth. It
 * returns whether the stream is connected, so a caller can poll instead while
 * it is not (or where EventSource does not exist).
 *
 * EventSource cannot set headers, so the token goes in the query, as the
 * contract allows. After `expired` or an error the caller's reload refreshes
 * the token through the API client, and the stream reconnects with it.
 */
export function useTransactionStream(enabled: boolean, onChange: () => void, { coalesceMs }: TransactionStreamOptions): boolean {
  const [live, setLive] = useState(false);
  // The latest callback, so a new closure on every render neither reconnects nor is lost.
  const callback = useRef(onChange);
  useEffect(() => {
    callback.current = onChange;
  }, [onChange]);

  useEffect(() => {
    if (!enabled || typeof EventSource === 'undefined') return;
    let source: EventSource | null = null;
    let reconnect: ReturnType<typeof setTimeout> | undefined;
    let pending: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;

    const changed = () => {
      if (pending !== undefined) return;
      pending = setTimeout(() => {
        pending = undefined;
        if (!stopped) callback.current();
      }, coalesceMs);
    };

    const connect = () => {
      const token = session.getState().accessToken;
      if (stopped || !token) return;
      source = new EventSource(api.url('gateway', TRANSACTION_STREAM_PATH, { access_token: token }));
      source.onopen = () => setLive(true);
      source.addEventListener('transaction', changed);
      const drop = () => {
        source?.close();
        source = null;
        setLive(false);
        // Reload (the API client refreshes an expiring token), then reconnect.
        changed();
        clearTimeout(reconnect);
        reconnect = setTimeout(connect, STREAM_RECONNECT_MS);
      };
      source.addEventListener('expired', drop);
      source.onerror = drop;
    };

    connect();
    return () => {
      stopped = true;
      clearTimeout(reconnect);
      clearTimeout(pending);
      source?.close();
      setLive(false);
    };
  }, [enabled, coalesceMs]);

  return live;
}
