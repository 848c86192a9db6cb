import { queryOptions, useQuery } from '@tanstack/react-query';
import type { MaintenanceServiceGetMaintenanceStatusResponseJson } from '@paygate/gen/gateway/v1/maintenance_pb';
import { api } from '@paygate/sdk';

/** fetchMaintenanceStatus tells whether maintenance mode is on (GET {gatewayUrl}/api/v1/maintenance/status). */
export async function fetchMaintenanceStatus(signal?: AbortSignal): Promise<boolean> {
  const body = await api.get<MaintenanceServiceGetMaintenanceStatusResponseJson>('gateway', '/api/v1/maintenance/status', { signal });
  return body?.isEnabled ?? false;
}

/** maintenanceStatusQuery is the query of the maintenance flag. */
export const maintenanceStatusQuery = () =>
  queryOptions({
    queryKey: ['maintenance-status'],
    queryFn: ({ signal }) => fetchMaintenanceStatus(signal),
  });

/**
 * useMaintenanceStatus reads the flag; the page asks only when the collab
 * list came as a bare list without it.
 */
export function useMaintenanceStatus(enabled: boolean) {
  return useQuery({ ...maintenanceStatusQuery(), enabled });
}
