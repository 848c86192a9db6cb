import { useMutation } from '@tanstack/react-query';
import type { CheckFeeConflictsResponseJson } from '@paygate/gen/gateway/v1/fees_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { feeInput } from './save-fee';
import { toFee, type Fee } from './types';

/** The fee about to be saved: its id ('' for a new one) and fields. */
export const checkFeeInput = z.object({
  id: z.string().regex(/^\d*$/),
  fee: feeInput,
});

export type CheckFeeInput = z.infer<typeof checkFeeInput>;

/** FeeConflict is an enabled fee the saved one would conflict with, and the id of the fee that wins their overlap ('0' for the new fee). */
export interface FeeConflict {
  fee: Fee;
  winnerId: string;
}

/**
 * checkFeeConflicts asks the server which enabled fees the fee would conflict
 * with (POST {gatewayUrl}/api/v1/fees/conflicts): the rule of spec 02 §5 is
 * the server's, never the console's.
 */
export async function checkFeeConflicts(input: CheckFeeInput): Promise<FeeConflict[]> {
  const { id, fee } = checkFeeInput.parse(input);
  const body = await api.post<CheckFeeConflictsResponseJson | undefined>('gateway', '/api/v1/fees/conflicts', { id: id || '0', fee });
  return (body?.conflicts ?? []).map((c) => ({ fee: toFee(c.fee ?? {}), winnerId: String(c.winnerId ?? '0') }));
}

/** useCheckFeeConflicts is the mutation of checkFeeConflicts (it reads, but on demand). */
export function useCheckFeeConflicts() {
  return useMutation({ mutationFn: checkFeeConflicts });
}
