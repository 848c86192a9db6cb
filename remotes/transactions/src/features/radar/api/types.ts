import type { RadarSlaJson, RadarTransactionJson } from '@paygate/gen/gateway/v1/radar_pb';

/** RadarRow is one overdue transaction (docs/contracts-radar.md RadarTransaction) with every field present. */
export interface RadarRow {
  id: string;
  referenceId: string;
  merchantId: number;
  merchantName: string;
  providerId: number;
  providerName: string;
  payTypeName: string;
  /** 1 deposit, 2 withdrawal. */
  transactionType: number;
  status: number;
  statusName: string;
  amount: string;
  currency: string;
  createdUtc: string;
  ageSeconds: number;
  slaSeconds: number;
  lateSeconds: number;
  /** success, failed, pending, cancelled, error or not_asked. */
  providerState: string;
  providerMessage: string;
  providerCheckedUtc: string;
  providerCached: boolean;
  mismatch: boolean;
}

/** RadarSla is one SLA with every field present. */
export interface RadarSla {
  id: string;
  providerId: number;
  providerName: string;
  payTypeId: number;
  payTypeName: string;
  /** 1 deposits, 2 withdrawals, 0 both. */
  transactionType: number;
  overdueAfterSeconds: number;
  isDefault: boolean;
  updatedUtc: string;
  updatedBy: string;
}

const num = (v: string | number | undefined | null): number => {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? n : 0;
};

/** toRadarRow fills the fields proto3 JSON leaves out. */
export function toRadarRow(t: RadarTransactionJson): RadarRow {
  return {
    id: String(t.id ?? ''),
    referenceId: t.referenceId ?? '',
    merchantId: t.merchantId ?? 0,
    merchantName: t.merchantName ?? '',
    providerId: t.providerId ?? 0,
    providerName: t.providerName ?? '',
    payTypeName: t.payTypeName ?? '',
    transactionType: t.transactionType ?? 0,
    status: t.status ?? 0,
    statusName: t.statusName ?? '',
    amount: t.amount ?? '',
    currency: t.currency ?? '',
    createdUtc: t.createdUtc ?? '',
    ageSeconds: num(t.ageSeconds),
    slaSeconds: num(t.slaSeconds),
    lateSeconds: num(t.lateSeconds),
    providerState: t.providerStatus?.state ?? 'not_asked',
    providerMessage: t.providerStatus?.message ?? '',
    providerCheckedUtc: t.providerStatus?.checkedUtc ?? '',
    providerCached: t.providerStatus?.cached ?? false,
    mismatch: t.mismatch ?? false,
  };
}

/** toRadarSla fills the fields proto3 JSON leaves out. */
export function toRadarSla(s: RadarSlaJson): RadarSla {
  return {
    id: String(s.id ?? ''),
    providerId: s.providerId ?? 0,
    providerName: s.providerName ?? '',
    payTypeId: s.payTypeId ?? 0,
    payTypeName: s.payTypeName ?? '',
    transactionType: s.transactionType ?? 0,
    overdueAfterSeconds: num(s.overdueAfterSeconds),
    isDefault: s.isDefault ?? false,
    updatedUtc: s.updatedUtc ?? '',
    updatedBy: s.updatedBy ?? '',
  };
}
