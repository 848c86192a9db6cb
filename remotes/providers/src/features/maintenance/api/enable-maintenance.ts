import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { MaintenanceServiceEnableMaintenanceModeResponseJson } from '@paygate/gen/gateway/v1/maintenance_pb';
import { api } from '@paygate/sdk';

/** enableMaintenance turns maintenance mode on (POST {gatewayUrl}/api/v1/maintenance/enable). */
export async function enableMaintenance(): Promise<boolean> {
  const body = await api.post<MaintenanceServiceEnableMaintenanceModeResponseJson>('gateway', '/api/v1/maintenance/enable');
  return body?.isEnabled ?? true;
}

/** useEnableMaintenance is the mutation of enableMaintenance; it refreshes the collab list and the flag. */
export function useEnableMaintenance() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: enableMaintenance,
    onSettled: () =>
      Promise.all([
        client.invalidateQueries({ queryKey: ['merchant-collabs'] }),
        client.invalidateQueries({ queryKey: ['maintenance-status'] }),
      ]),
  });
}
