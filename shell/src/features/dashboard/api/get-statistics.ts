import { queryOptions, useQuery } from '@tanstack/react-query';
import type {
  CashFlowJson,
  GetStatisticsRequestJson,
  GetStatisticsResponseJson,
  MerchantCashFlowJson,
} from '@paygate/gen/aggregator/v1/statistics_pb';
import { api, isDecimal } from '@paygate/sdk';
import type { StatusCounts } from '../utils/figures';
import { rangeFor, type StatisticsRange } from '../utils/range';

/** The currency the console asks for (spec 01 §7). */
export const STATISTICS_CURRENCY = 'USD';

/** StatisticsInput is what the dashboard asks for: a dropdown value, the console's timezone and an optional merchant. */
export interface StatisticsInput {
  /** The time-range dropdown's value, in days. */
  days: number;
  /** The console's timezone (zone id). */
  zone: string;
  /** Only this merchant (the 'Current Merchant'); all of the caller's when null. */
  merchantId: number | null;
}

/** CashFlowDay is one day of the cash-in or cash-out series. */
export interface CashFlowDay {
  start: string;
  amount: string;
  count: number;
}

/** CashFlow is the successful deposits or withdrawals of the range. */
export interface CashFlow {
  amount: string;
  count: number;
  days: CashFlowDay[];
}

/** MerchantCashFlow is one row of the admin's Cash In / Cash Out tabs. */
export interface MerchantCashFlow {
  merchantId: number;
  merchantName: string;
  amount: string;
  count: number;
}

/** Unconverted is an amount whose currency had no rate, in its own currency. */
export interface Unconverted {
  currency: string;
  /** 1 deposit, 2 withdrawal. */
  transactionType: number;
  amount: string;
  count: number;
}

/** Statistics is the statistics answer with counts as numbers and amounts as exact decimal strings. */
export interface Statistics extends StatusCounts {
  byProvider: { providerId: number; providerName: string; count: number; successful: number }[];
  byMerchant: { merchantId: number; merchantName: string; count: number; successful: number }[];
  cashInData: CashFlow;
  cashOutData: CashFlow;
  cashInDataByMerchant: MerchantCashFlow[];
  cashOutDataByMerchant: MerchantCashFlow[];
  currency: string;
  unconverted: Unconverted[];
  /** The newest transaction event the figures include, when the server says. */
  asOf: string | null;
  /** The range asked for. */
  range: StatisticsRange;
}

// int64 counts arrive as JSON strings (proto3 JSON); zero values may be left out.
const count = (v: string | number | undefined) => {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? n : 0;
};
const amount = (v: string | undefined) => (v && isDecimal(v) ? v : '0');

function cashFlow(c: CashFlowJson | undefined): CashFlow {
  return {
    amount: amount(c?.amount),
    count: count(c?.count),
    days: (c?.days ?? []).map((d) => ({ start: d.start ?? '', amount: amount(d.amount), count: count(d.count) })),
  };
}

function merchantCashFlows(list: MerchantCashFlowJson[] | undefined): MerchantCashFlow[] {
  return (list ?? []).map((m) => ({ merchantId: m.merchantId ?? 0, merchantName: m.merchantName ?? '', amount: amount(m.amount), count: count(m.count) }));
}

/** toStatistics reads the wire answer. */
export function toStatistics(body: GetStatisticsResponseJson | undefined, range: StatisticsRange): Statistics {
  const b = body ?? {};
  return {
    total: count(b.total),
    successful: count(b.successful),
    failed: count(b.failed),
    pending: count(b.pending),
    refunded: count(b.refunded),
    validationFailed: count(b.validationFailed),
    pspError: count(b.pspError),
    cancelled: count(b.cancelled),
    notConfirmed: count(b.notConfirmed),
    byProvider: (b.byProvider ?? []).map((p) => ({ providerId: p.providerId ?? 0, providerName: p.providerName ?? '', count: count(p.count), successful: count(p.successful) })),
    byMerchant: (b.byMerchant ?? []).map((m) => ({ merchantId: m.merchantId ?? 0, merchantName: m.merchantName ?? '', count: count(m.count), successful: count(m.successful) })),
    cashInData: cashFlow(b.cashInData),
    cashOutData: cashFlow(b.cashOutData),
    cashInDataByMerchant: merchantCashFlows(b.cashInDataByMerchant),
    cashOutDataByMerchant: merchantCashFlows(b.cashOutDataByMerchant),
    currency: b.currency || STATISTICS_CURRENCY,
    unconverted: (b.unconverted ?? []).map((u) => ({ currency: u.currency ?? '', transactionType: u.transactionType ?? 0, amount: amount(u.amount), count: count(u.count) })),
    asOf: b.asOf ?? null,
    range,
  };
}

/**
 * fetchStatistics reads the figures of a range (GET {gatewayUrl}/api/v1/statistics,
 * forwarded to the aggregator). The range is computed when the call is made,
 * so a refresh after midnight asks for the new day.
 */
export async function fetchStatistics(input: StatisticsInput, signal?: AbortSignal, now: Date = new Date()): Promise<Statistics> {
  const range = rangeFor(input.days, now, input.zone);
  const query: GetStatisticsRequestJson = {
    currency: STATISTICS_CURRENCY,
    from: range.from,
    to: range.to,
    ...(input.merchantId !== null ? { merchantId: input.merchantId } : {}),
  };
  const body = await api.get<GetStatisticsResponseJson>('gateway', '/api/v1/statistics', { signal, query });
  return toStatistics(body, range);
}

/** statisticsQuery is the query of the dashboard's figures; its key starts with 'statistics'. */
export const statisticsQuery = (input: StatisticsInput) =>
  queryOptions({
    queryKey: ['statistics', input],
    queryFn: ({ signal }) => fetchStatistics(input, signal),
  });

/** useStatistics reads the dashboard's figures. */
export function useStatistics(input: StatisticsInput) {
  return useQuery(statisticsQuery(input));
}
