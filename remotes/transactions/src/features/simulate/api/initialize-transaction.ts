import { useMutation } from '@tanstack/react-query';
import type { InitializeTransactionResponseJson } from '@paygate/gen/gateway/v1/transactions_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

/** The payment simulation payload of spec 02 §3. */
export const initializeTransactionInput = z.object({
  paymentData: z.object({
    nonce: z.string().min(1),
    amount: z.string().regex(/^\d+(\.\d{1,2})?$/),
    currency: z.string().min(1),
    providerId: z.number().int().positive(),
    payType: z.string().min(1),
    providerTags: z.array(z.string()),
  }),
  merchantData: z.object({
    merchantHash: z.string().min(1),
    clientId: z.string(),
    additionalData: z.record(z.string(), z.unknown()),
  }),
  cashIn: z.boolean(),
});

export type InitializeTransactionInput = z.infer<typeof initializeTransactionInput>;

/** InitializeResult is the answer: the reference and, from this gateway, the id and status. */
export interface InitializeResult {
  transactionReferenceId: string;
  id: string;
  transactionStatus: number;
  transactionStatusMessage: string;
}

/** initializeTransaction starts a payment as the signed-in operator (POST {gatewayUrl}/api/v1/transactions/initialize). */
export async function initializeTransaction(input: InitializeTransactionInput): Promise<InitializeResult> {
  const body = initializeTransactionInput.parse(input);
  const res = await api.post<InitializeTransactionResponseJson>('gateway', '/api/v1/transactions/initialize', body);
  return {
    transactionReferenceId: res?.transactionReferenceId ?? '',
    id: res?.id ?? '',
    transactionStatus: res?.transactionStatus ?? 0,
    transactionStatusMessage: res?.transactionStatusMessage ?? '',
  };
}

/** useInitializeTransaction is the mutation of initializeTransaction. */
export function useInitializeTransaction() {
  return useMutation({ mutationFn: initializeTransaction });
}
