import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { RADAR_KEY } from './get-radar';
import { SLAS_KEY } from './get-slas';

const slaId = z.string().regex(/^\d+$/);

/** deleteSla deletes an SLA (DELETE /api/v1/radar/slas/{id}); the default cannot be deleted. */
export async function deleteSla(id: string): Promise<void> {
  await api.request<unknown>('gateway', `/api/v1/radar/slas/${slaId.parse(id)}`, { method: 'DELETE' });
}

/** useDeleteSla is the mutation of deleteSla; the SLAs and the radar reload after it. */
export function useDeleteSla() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteSla,
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: SLAS_KEY }), client.invalidateQueries({ queryKey: RADAR_KEY })]),
  });
}
