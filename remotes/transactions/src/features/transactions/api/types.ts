import type { TransactionJson, TransactionLogJson } from '@paygate/gen/gateway/v1/transactions_pb';
import { isDecimal } from '@paygate/sdk';

/**
 * The gateway's JSON shapes for transactions (docs/contracts-transactions.md,
 * generated from the gateway's protos) and their normalizers. proto3 JSON may
 * leave out false, 0 and empty values, so every normalizer fills the defaults.
 */

/** TransactionWire is a transaction on the wire. */
export type TransactionWire = TransactionJson;

/** TransactionLogWire is one journal entry on the wire. */
export type TransactionLogWire = TransactionLogJson;

/**
 * TransactionListWire is the answer of the advanced list (spec 02 §3
 * "Transaction list response"); the call is not served yet, so its shape
 * follows the spec rather than a generated type.
 */
export interface TransactionListWire {
  transactions?: TransactionWire[];
  totalCount?: number | string;
  totalPages?: number;
  currentPage?: number;
  totalAmounts?: Record<string, string | number>;
  /** Set when the page was read from a read replica at least a second behind (docs/contracts-transactions.md). */
  dataLagSeconds?: number;
}

/** Transaction is a transaction as the console shows it. */
export interface Transaction {
  id: string;
  transactionReferenceId: string;
  providerTransactionId: string;
  merchantClientId: string;
  nonce: string;
  amount: string;
  currency: string;
  destinationAmount: string;
  destinationCurrency: string;
  /** 1 deposit, 2 withdrawal. */
  transactionType: number;
  transactionStatus: number;
  transactionStatusMessage: string;
  /** Callback tally "delivered/total" ("0/0" before any delivery); see callbackDelivery. */
  callbackDeliveryStatus: string;
  merchantName: string;
  providerName: string;
  providerPayType: string;
  createdUtc: string;
  updatedUtc: string;
  errorMessage: string;
  accountData: Record<string, unknown>;
  paymentIpAddress: string;
  userAgent: string;
  paymentMethodType: number;
  paymentMethodValue: string;
  appliedFeeType: number;
  appliedFeeValue: string;
  appliedFeeAmount: string;
  appliedFeeCurrency: string;
  appliedFeePayer: number;
  isCallbackSendingCanceled: boolean;
  collabId: number;
  providerData: Record<string, unknown>;
  /** Status polls since the transaction was last queued for polling; the row warns above 10 (spec 02 §2). */
  pollingAttempts: number;
}

/** TransactionList is one page of the list. */
export interface TransactionList {
  transactions: Transaction[];
  totalCount: number;
  totalPages: number;
  currentPage: number;
  /** Total per currency as an exact decimal string; only when requested (see needsTotals). */
  totalAmounts: Record<string, string>;
  /** How many seconds behind the primary the page may be (0: up to date). */
  dataLagSeconds: number;
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** toTransaction fills a transaction's defaults; both spellings of the callbacks-cancelled flag are read. */
export function toTransaction(t: TransactionWire & { isCallbacksSendingCanceled?: boolean }): Transaction {
  return {
    id: String(t.id ?? ''),
    transactionReferenceId: t.transactionReferenceId ?? '',
    providerTransactionId: t.providerTransactionId ?? '',
    merchantClientId: t.merchantClientId ?? '',
    nonce: t.nonce ?? '',
    amount: t.amount ?? '0.00',
    currency: t.currency ?? '',
    destinationAmount: t.destinationAmount ?? '',
    destinationCurrency: t.destinationCurrency ?? '',
    transactionType: t.transactionType ?? 0,
    transactionStatus: t.transactionStatus ?? 0,
    transactionStatusMessage: t.transactionStatusMessage ?? '',
    callbackDeliveryStatus: t.callbackDeliveryStatus || '0/0',
    merchantName: t.merchantName ?? '',
    providerName: t.providerName ?? '',
    providerPayType: t.providerPayType ?? '',
    createdUtc: t.createdUtc ?? '',
    updatedUtc: t.updatedUtc ?? '',
    errorMessage: t.errorMessage ?? '',
    accountData: obj(t.accountData),
    paymentIpAddress: t.paymentIpAddress ?? '',
    userAgent: t.userAgent ?? '',
    paymentMethodType: t.paymentMethodType ?? 0,
    paymentMethodValue: t.paymentMethodValue ?? '',
    appliedFeeType: t.appliedFeeType ?? 0,
    appliedFeeValue: t.appliedFeeValue ?? '',
    appliedFeeAmount: t.appliedFeeAmount ?? '',
    appliedFeeCurrency: t.appliedFeeCurrency ?? '',
    appliedFeePayer: t.appliedFeePayer ?? 0,
    isCallbackSendingCanceled: t.isCallbackSendingCanceled ?? t.isCallbacksSendingCanceled ?? false,
    collabId: t.collabId ?? 0,
    providerData: obj(t.providerData),
    pollingAttempts: t.pollingAttempts ?? 0,
  };
}

/** toTransactionList fills a list page's defaults. */
export function toTransactionList(body: TransactionListWire | undefined): TransactionList {
  const totals: Record<string, string> = {};
  for (const [cur, v] of Object.entries(body?.totalAmounts ?? {})) {
    const s = String(v).trim();
    if (isDecimal(s)) totals[cur] = s;
  }
  return {
    transactions: (body?.transactions ?? []).map(toTransaction),
    totalCount: Number(body?.totalCount ?? 0),
    totalPages: body?.totalPages ?? 0,
    currentPage: body?.currentPage ?? 1,
    totalAmounts: totals,
    dataLagSeconds: Math.max(0, Math.ceil(Number(body?.dataLagSeconds ?? 0)) || 0),
  };
}

/** EMPTY_LIST is the list shown for a 404 (spec 02 §8: a 404 on fetch gives an empty result). */
export const EMPTY_LIST: TransactionList = { transactions: [], totalCount: 0, totalPages: 0, currentPage: 1, totalAmounts: {}, dataLagSeconds: 0 };
