import type { FeeJson, FeeInputJson } from '@paygate/gen/gateway/v1/fees_pb';

/**
 * The gateway's fee shapes (docs/contracts-fees.md, generated from
 * fees.proto) and their normalizers: proto3 JSON may leave out 0, false and
 * empty values, and 64-bit ids come as strings.
 */

/** Fee is a fee rule (spec 02 §3 Fee) with every field present. */
export interface Fee {
  id: string;
  /** 0 for a global fee (every collab). */
  collabId: number;
  /** 0 both, 1 deposit, 2 withdrawal. */
  transactionType: number;
  /** 0 every pay type. */
  payTypeId: number;
  currencyFromId: number;
  currencyToId: number;
  currencyFrom: string;
  currencyTo: string;
  /** Decimal strings; '' for an open end. */
  amountMin: string;
  amountMax: string;
  priority: number;
  enabled: boolean;
  /** 0 None, 1 Percent, 2 Fixed (spec 02 §4). */
  feeType: number;
  value: string;
  /** 1 client fee, 2 merchant fee. */
  payer: number;
}

/** toFee fills a fee's missing fields. */
export function toFee(f: FeeJson): Fee {
  return {
    id: String(f.id ?? ''),
    collabId: f.collabId ?? 0,
    transactionType: f.transactionType ?? 0,
    payTypeId: f.payTypeId ?? 0,
    currencyFromId: f.currencyFromId ?? 0,
    currencyToId: f.currencyToId ?? 0,
    currencyFrom: f.currencyFrom ?? '',
    currencyTo: f.currencyTo ?? '',
    amountMin: f.amountMin ?? '',
    amountMax: f.amountMax ?? '',
    priority: f.priority ?? 0,
    enabled: f.enabled ?? false,
    feeType: f.feeType ?? 0,
    value: f.value ?? '',
    payer: f.payer ?? 2,
  };
}

/** FeeInput is a fee as the dialog sends it. */
export type FeeInput = Required<Omit<FeeInputJson, 'enabled'>> & { enabled: boolean };
