import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SetRadarSlaRequestJson, SetRadarSlaResponseJson } from '@paygate/gen/gateway/v1/radar_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { RADAR_KEY } from './get-radar';
import { SLAS_KEY } from './get-slas';
import { toRadarSla, type RadarSla } from './types';

/** The input of an SLA: its key (0 for any) and its duration in seconds (1 s to 30 days). */
export const setSlaInput = z.object({
  providerId: z.number().int().min(0),
  payTypeId: z.number().int().min(0),
  transactionType: z.number().int().min(0).max(2),
  overdueAfterSeconds: z.number().int().min(1).max(2_592_000),
});

export type SetSlaInput = z.infer<typeof setSlaInput>;

/** setSla adds or changes the SLA of the input's key (PUT /api/v1/radar/slas). */
export async function setSla(input: SetSlaInput): Promise<RadarSla> {
  const { overdueAfterSeconds, ...key } = setSlaInput.parse(input);
  // A 64-bit integer travels as a JSON string.
  const body: SetRadarSlaRequestJson = { ...key, overdueAfterSeconds: String(overdueAfterSeconds) };
  const out = await api.request<SetRadarSlaResponseJson | undefined>('gateway', '/api/v1/radar/slas', { method: 'PUT', body });
  return toRadarSla(out?.sla ?? {});
}

/** useSetSla is the mutation of setSla; the SLAs and the radar reload after it. */
export function useSetSla() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: setSla,
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: SLAS_KEY }), client.invalidateQueries({ queryKey: RADAR_KEY })]),
  });
}
