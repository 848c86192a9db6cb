import { useMutation } from '@tanstack/react-query';
import type { PreviewFeeResponseJson } from '@paygate/gen/gateway/v1/fees_pb';
import { api } from '@paygate/sdk';
import { checkFeeInput, type CheckFeeInput } from './check-fee-conflicts';

/** FeePreviewRow is the what-if of one currency. */
export interface FeePreviewRow {
  currency: string;
  transactionCount: number;
  changedCount: number;
  feeBefore: string;
  feeAfter: string;
}

/** FeePreview is the what-if of a fee over the last 30 days. */
export interface FeePreview {
  fromUtc: string;
  toUtc: string;
  currencies: FeePreviewRow[];
}

/** previewFee asks how the fees of the last 30 days' transactions would change with the fee saved (POST {gatewayUrl}/api/v1/fees/preview). */
export async function previewFee(input: CheckFeeInput): Promise<FeePreview> {
  const { id, fee } = checkFeeInput.parse(input);
  const body = await api.post<PreviewFeeResponseJson | undefined>('gateway', '/api/v1/fees/preview', { id: id || '0', fee });
  return {
    fromUtc: body?.fromUtc ?? '',
    toUtc: body?.toUtc ?? '',
    currencies: (body?.currencies ?? []).map((c) => ({
      currency: c.currency ?? '',
      transactionCount: Number(c.transactionCount ?? 0),
      changedCount: Number(c.changedCount ?? 0),
      feeBefore: c.feeBefore ?? '0.00',
      feeAfter: c.feeAfter ?? '0.00',
    })),
  };
}

/** usePreviewFee is the mutation of previewFee (a read on demand). */
export function usePreviewFee() {
  return useMutation({ mutationFn: previewFee });
}
