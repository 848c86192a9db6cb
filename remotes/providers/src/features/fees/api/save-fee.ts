import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CreateFeeResponseJson, FeeJson } from '@paygate/gen/gateway/v1/fees_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { FEES_KEY } from './get-fees';
import { toFee, type Fee } from './types';

/** The fee as the dialog saves it. */
export const feeInput = z.object({
  collabId: z.number().int().min(0),
  transactionType: z.number().int().min(0).max(2),
  payTypeId: z.number().int().min(0),
  currencyFromId: z.number().int().positive(),
  currencyToId: z.number().int().positive(),
  amountMin: z.string(),
  amountMax: z.string(),
  priority: z.number().int().min(0).max(1_000_000),
  enabled: z.boolean(),
  feeType: z.number().int().min(0).max(2),
  value: z.string(),
  payer: z.number().int().min(1).max(2),
});

/** A save: the fee's id ('' for a new one), the fee, and whether to save over conflicts. */
export const saveFeeInput = z.object({
  id: z.string().regex(/^\d*$/),
  fee: feeInput,
  allowConflict: z.boolean(),
});

export type SaveFeeInput = z.infer<typeof saveFeeInput>;

/** saveFee creates (POST {gatewayUrl}/api/v1/fees) or replaces (PUT {gatewayUrl}/api/v1/fees/{id}) a fee. */
export async function saveFee(input: SaveFeeInput): Promise<Fee> {
  const { id, fee, allowConflict } = saveFeeInput.parse(input);
  const body = { ...fee, allowConflict };
  const answer = id
    ? await api.request<FeeJson | undefined>('gateway', `/api/v1/fees/${id}`, { method: 'PUT', body })
    : await api.post<CreateFeeResponseJson['fee'] | undefined>('gateway', '/api/v1/fees', body);
  return toFee(answer ?? {});
}

/** useSaveFee is the mutation of saveFee; every fee read reloads afterwards. */
export function useSaveFee() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: saveFee,
    onSuccess: () => client.invalidateQueries({ queryKey: FEES_KEY }),
  });
}
