import type { FraudJson, FraudTransactionJson } from '@paygate/gen/gateway/v1/frauds_pb';

/** FraudTransaction is one transaction of a fraud (spec 02 §3 Fraud transactionsDtos) with every field present. */
export interface FraudTransaction {
  id: string;
  amount: string;
  currency: string;
  /** 1 cash in, 2 cash out. */
  transactionType: number;
  createdUtc: string;
  providerName: string;
  merchantName: string;
  merchantId: number;
  callbackDeliveryStatus: string;
  transactionStatus: number;
  isCallbacksSendingCanceled: boolean;
  transactionReferenceId: string;
}

/** Fraud is one flag of the fraud-detection job (spec 02 §3 Fraud) with every field present. */
export interface Fraud {
  id: string;
  referenceId: string;
  clientId: string;
  merchantClientId: string;
  /** 1 Low, 2 Medium, 3 High, 4 Critical, else None. */
  level: number;
  detectedAtUtc: string;
  updatedAtUtc: string;
  reason: string;
  /** 0 Not Reviewed, 1 Confirmed, 2 Denied. */
  reviewStatus: number;
  reviewCompletedAtUtc: string;
  reviewedBy: string;
  notes: string;
  isCallbacksSendingCanceled: boolean;
  transactionsDtos: FraudTransaction[];
  rule: string;
  merchantId: number;
  transactionCount: number;
}

const num = (v: string | number | undefined | null): number => {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? n : 0;
};

/** toFraudTransaction fills the fields proto3 JSON leaves out. */
export function toFraudTransaction(t: FraudTransactionJson): FraudTransaction {
  return {
    id: String(t.id ?? ''),
    amount: t.amount ?? '',
    currency: t.currency ?? '',
    transactionType: t.transactionType ?? 0,
    createdUtc: t.createdUtc ?? '',
    providerName: t.providerName ?? '',
    merchantName: t.merchantName ?? '',
    merchantId: t.merchantId ?? 0,
    callbackDeliveryStatus: t.callbackDeliveryStatus ?? '',
    transactionStatus: t.transactionStatus ?? 0,
    isCallbacksSendingCanceled: t.isCallbacksSendingCanceled ?? false,
    transactionReferenceId: t.transactionReferenceId ?? '',
  };
}

/** toFraud fills the fields proto3 JSON leaves out; 64-bit ids come as strings. */
export function toFraud(f: FraudJson): Fraud {
  return {
    id: String(f.id ?? ''),
    referenceId: f.referenceId ?? '',
    clientId: f.clientId ?? '',
    merchantClientId: f.merchantClientId ?? '',
    level: f.level ?? 0,
    detectedAtUtc: f.detectedAtUtc ?? '',
    updatedAtUtc: f.updatedAtUtc ?? '',
    reason: f.reason ?? '',
    reviewStatus: f.reviewStatus ?? 0,
    reviewCompletedAtUtc: f.reviewCompletedAtUtc ?? '',
    reviewedBy: f.reviewedBy ?? '',
    notes: f.notes ?? '',
    isCallbacksSendingCanceled: f.isCallbacksSendingCanceled ?? false,
    transactionsDtos: (f.transactionsDtos ?? []).map(toFraudTransaction),
    rule: f.rule ?? '',
    merchantId: f.merchantId ?? 0,
    transactionCount: num(f.transactionCount),
  };
}
