import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { AcknowledgeAlertResponseJson, ListAlertsResponseJson } from '@paygate/gen/gateway/v1/watchlists_pb';
import { ALERTS_KEY, api } from '@paygate/sdk';
import { z } from 'zod';

/** The page size of the Alerts history. */
export const ALERTS_PAGE_SIZE = 20;

export const listAlertsInput = z.object({ unacknowledged: z.boolean(), pageToken: z.string() });
export type ListAlertsInput = z.infer<typeof listAlertsInput>;

/** fetchAlerts reads a page of the user's alerts, newest first (GET /api/v1/alerts, keyset paged). */
export async function fetchAlerts(input: ListAlertsInput, signal?: AbortSignal): Promise<ListAlertsResponseJson> {
  const i = listAlertsInput.parse(input);
  return api.get<ListAlertsResponseJson>('gateway', '/api/v1/alerts', {
    signal,
    query: { pageSize: ALERTS_PAGE_SIZE, unacknowledged: i.unacknowledged || undefined, pageToken: i.pageToken || undefined },
  });
}

/** useAlertsPage reads one page of the alerts: the first with pageToken '', each next with the previous page's token. */
export function useAlertsPage(input: ListAlertsInput) {
  return useQuery({
    queryKey: [...ALERTS_KEY, 'list', input],
    queryFn: ({ signal }) => fetchAlerts(input, signal),
  });
}

/** useAcknowledgeAlert marks an alert as seen (POST /api/v1/alerts/{id}/acknowledge) and refreshes the list and the badge. */
export function useAcknowledgeAlert() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => (await api.post<AcknowledgeAlertResponseJson>('gateway', `/api/v1/alerts/${encodeURIComponent(id)}/acknowledge`, {})).alert,
    onSuccess: () => client.invalidateQueries({ queryKey: ALERTS_KEY }),
  });
}
