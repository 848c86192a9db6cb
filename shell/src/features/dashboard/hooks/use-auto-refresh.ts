import { hasPermission, useDashboardAutoRefresh, useTransactionStream, useUser } from '@paygate/sdk';

/** Stream events are coalesced into at most one refetch per this window. */
export const AUTO_REFRESH_COALESCE_MS = 3_000;

/** AutoRefresh is the state of the dashboard's Auto-refresh switch. */
export interface AutoRefresh {
  /** The stored choice (off by default). */
  on: boolean;
  set: (on: boolean) => void;
  /** The stream needs Get Transactions; without it the switch is disabled. */
  available: boolean;
  /** The live stream is connected. */
  live: boolean;
}

/**
 * useAutoRefresh drives the dashboard from the gateway's transaction stream
 * (the transactions page's approach): while the switch is on, a transaction
 * event calls `refetch`, at most once per 3 s.
 */
export function useAutoRefresh(refetch: () => void): AutoRefresh {
  const user = useUser();
  const [on, set] = useDashboardAutoRefresh();
  const available = hasPermission(user, 'Get Transactions');
  const live = useTransactionStream(on && available, refetch, { coalesceMs: AUTO_REFRESH_COALESCE_MS });
  return { on, set, available, live };
}
