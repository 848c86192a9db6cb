import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { MaintenanceServiceDisableMaintenanceModeResponseJson } from '@paygate/gen/gateway/v1/maintenance_pb';
import { api } from '@paygate/sdk';

/** disableMaintenance turns maintenance mode off (POST {gatewayUrl}/api/v1/maintenance/disable). */
export async function disableMaintenance(): Promise<boolean> {
  const body = await api.post<MaintenanceServiceDisableMaintenanceModeResponseJson>('gateway', '/api/v1/maintenance/disable');
  return body?.isEnabled ?? false;
}

/** useDisableMaintenance is the mutation of disableMaintenance; it refreshes the collab list and the flag. */
export function useDisableMaintenance() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: disableMaintenance,
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['merchant-collabs'] }),
        client.invalidateQueries({ queryKey: ['maintenance-status'] }),
      ]),
  });
}
