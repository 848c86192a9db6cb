import { useQuery } from '@tanstack/react-query';
import { mayCall, unacknowledgedAlertsQuery, type User } from '@paygate/sdk';

/** How often the sidebar asks again (an alert on the stream asks at once). */
export const UNACKNOWLEDGED_ALERTS_REFRESH_MS = 60_000;

/**
 * useUnacknowledgedAlerts reads how many of the user's watchlist alerts are
 * not acknowledged (GET /api/v1/alerts, docs/contracts-watchlists.md), when
 * the server lets the user ask; 0 until known or when the call fails.
 */
export function useUnacknowledgedAlerts(user: User): number {
  const query = useQuery({
    ...unacknowledgedAlertsQuery(),
    enabled: mayCall(user, 'GET /api/v1/alerts'),
    refetchInterval: UNACKNOWLEDGED_ALERTS_REFRESH_MS,
    retry: false,
  });
  return query.data ?? 0;
}
