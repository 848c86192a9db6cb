import type {
  CollabJson,
  CollabLimitsJson,
  CollabSettingsJson,
  ListCollabsResponseJson,
  ProviderJson,
  ProviderPayTypeJson,
} from '@paygate/gen/gateway/v1/collabs_pb';

/**
 * The gateway's JSON shapes for providers and collaborations
 * (docs/contracts-providers.md, generated from the gateway's protos) and their
 * normalizers. proto3 JSON may leave out false, 0 and empty values, so every
 * normalizer fills the defaults; the normalized types are what the components
 * use.
 */

/** PayTypeWire is a ProviderPayType on the wire. */
export type PayTypeWire = ProviderPayTypeJson;

/** ProviderWire is a Provider on the wire. */
export type ProviderWire = ProviderJson;

/** CollabWire is a Collab on the wire. */
export type CollabWire = CollabJson;

/** MerchantCollabsWire is the answer of GET /merchant-collabs: the object form, or a bare list (spec 01 §7). */
export type MerchantCollabsWire = CollabJson[] | ListCollabsResponseJson;

/** CollabSettingsWire is the answer of GET /collabs/{id}/settings. */
export type CollabSettingsWire = CollabSettingsJson;

/** CollabLimitsWire is the answer of GET /merchants/collab/{id}/limits. */
export type CollabLimitsWire = CollabLimitsJson;

/** AmountsWire are the four limit amounts: decimal strings, '' for no limit. */
type AmountsWire = Pick<CollabLimitsJson, 'minimalDepositAmount' | 'maximalDepositAmount' | 'minimalWithdrawAmount' | 'maximalWithdrawAmount'>;

/** PayType is a pay type: what the provider supports and, on a collab, its channel switches. */
export interface PayType {
  id: number;
  name: string;
  code: string;
  cashIn: boolean;
  cashOut: boolean;
  isCashInEnabled: boolean;
  isCashOutEnabled: boolean;
}

/** Provider is a payment provider with every pay type it offers. */
export interface Provider {
  id: number;
  name: string;
  isEnabled: boolean;
  supportsCashIn: boolean;
  supportsCashOut: boolean;
  payTypes: PayType[];
}

/** Collab links one merchant to one provider; provider.payTypes are the pay types on the collab. */
export interface Collab {
  id: number;
  isEnabled: boolean;
  isCashInEnabled: boolean;
  isCashOutEnabled: boolean;
  /** disabled: the merchant's payments are refused (MerchantService UpdateMerchant). */
  merchant: { id: number; name: string; disabled?: boolean };
  provider: { id: number; name: string; supportsCashIn: boolean; supportsCashOut: boolean; payTypes: PayType[] };
}

/** MerchantCollabs is the collab list with the maintenance flag when the server sent it. */
export interface MerchantCollabs {
  collabs: Collab[];
  /** undefined when the server answered with a bare list. */
  isMaintenanceModeEnabled: boolean | undefined;
}

/** CollabPayTypeSetting is one pay type of a collab with its channel switches. */
export interface CollabPayTypeSetting {
  payTypeId: number;
  name: string;
  code: string;
  cashIn: boolean;
  cashOut: boolean;
  IsCashInEnabled: boolean;
  IsCashOutEnabled: boolean;
}

/** CollabSettings are a collab's settings as the server keeps them: every value a string. */
export interface CollabSettings {
  collabId: number;
  settings: Record<string, string>;
  payTypeSettings: CollabPayTypeSetting[];
}

/** AmountKey names one of the four limit amounts. */
export type AmountKey = 'minimalDepositAmount' | 'maximalDepositAmount' | 'minimalWithdrawAmount' | 'maximalWithdrawAmount';

/** Amounts are the four limit amounts as decimal strings ('' = no limit). */
export type Amounts = Record<AmountKey, string>;

/** PayTypeLimits are one collab pay type's limits. */
export interface PayTypeLimits extends Amounts {
  collabPayTypeId: number;
  payTypeId: number;
  paytypeName: string;
  paytypeCode: string;
  supportsDeposits: boolean;
  supportsWithdrawals: boolean;
}

/** CollabLimits are a collab's limits and its pay types' limits. */
export interface CollabLimits extends Amounts {
  collabId: number;
  supportsDeposits: boolean;
  supportsWithdrawals: boolean;
  collabPayTypeLimits: PayTypeLimits[];
}

const num = (v: number | undefined): number => v ?? 0;

/** toPayType fills a pay type's defaults. */
export function toPayType(p: PayTypeWire): PayType {
  return {
    id: num(p.id),
    name: p.name ?? '',
    code: p.code ?? '',
    cashIn: p.cashIn ?? false,
    cashOut: p.cashOut ?? false,
    isCashInEnabled: p.isCashInEnabled ?? false,
    isCashOutEnabled: p.isCashOutEnabled ?? false,
  };
}

/** toProvider fills a provider's defaults. */
export function toProvider(p: ProviderWire): Provider {
  return {
    id: num(p.id),
    name: p.name ?? '',
    isEnabled: p.isEnabled ?? false,
    supportsCashIn: p.supportsCashIn ?? false,
    supportsCashOut: p.supportsCashOut ?? false,
    payTypes: (p.payTypes ?? []).map(toPayType),
  };
}

/**
 * toCollab fills a collab's defaults. When the provider's directions are
 * missing they are derived from its pay types (a provider supports a
 * direction some pay type supports), so older answers still render.
 */
export function toCollab(c: CollabWire): Collab {
  const payTypes = (c.provider?.payTypes ?? []).map(toPayType);
  return {
    id: num(c.id),
    isEnabled: c.isEnabled ?? false,
    isCashInEnabled: c.isCashInEnabled ?? false,
    isCashOutEnabled: c.isCashOutEnabled ?? false,
    merchant: { id: num(c.merchant?.id), name: c.merchant?.name ?? '', disabled: c.merchant?.disabled === true },
    provider: {
      id: num(c.provider?.id),
      name: c.provider?.name ?? '',
      supportsCashIn: c.provider?.supportsCashIn ?? payTypes.some((p) => p.cashIn),
      supportsCashOut: c.provider?.supportsCashOut ?? payTypes.some((p) => p.cashOut),
      payTypes,
    },
  };
}

/** toMerchantCollabs accepts both forms of the merchant-collabs answer. */
export function toMerchantCollabs(body: MerchantCollabsWire | undefined): MerchantCollabs {
  if (Array.isArray(body)) return { collabs: body.map(toCollab), isMaintenanceModeEnabled: undefined };
  return {
    collabs: (body?.collabs ?? []).map(toCollab),
    isMaintenanceModeEnabled: body?.isMaintenanceModeEnabled ?? (body ? false : undefined),
  };
}

/** toCollabSettings fills the defaults of a settings answer. */
export function toCollabSettings(s: CollabSettingsWire | undefined): CollabSettings {
  return {
    collabId: num(s?.collabId),
    settings: { ...(s?.settings ?? {}) },
    payTypeSettings: (s?.payTypeSettings ?? []).map((p) => ({
      payTypeId: num(p.payTypeId),
      name: p.name ?? '',
      code: p.code ?? '',
      cashIn: p.cashIn ?? false,
      cashOut: p.cashOut ?? false,
      IsCashInEnabled: p.IsCashInEnabled ?? false,
      IsCashOutEnabled: p.IsCashOutEnabled ?? false,
    })),
  };
}

function amounts(a: AmountsWire): Amounts {
  return {
    minimalDepositAmount: a.minimalDepositAmount ?? '',
    maximalDepositAmount: a.maximalDepositAmount ?? '',
    minimalWithdrawAmount: a.minimalWithdrawAmount ?? '',
    maximalWithdrawAmount: a.maximalWithdrawAmount ?? '',
  };
}

/** toCollabLimits fills the defaults of a limits answer. */
export function toCollabLimits(l: CollabLimitsWire | undefined): CollabLimits {
  return {
    collabId: num(l?.collabId),
    supportsDeposits: l?.supportsDeposits ?? false,
    supportsWithdrawals: l?.supportsWithdrawals ?? false,
    ...amounts(l ?? {}),
    collabPayTypeLimits: (l?.collabPayTypeLimits ?? []).map((p) => ({
      collabPayTypeId: num(p.collabPayTypeId),
      payTypeId: num(p.payTypeId),
      paytypeName: p.paytypeName ?? '',
      paytypeCode: p.paytypeCode ?? '',
      supportsDeposits: p.supportsDeposits ?? false,
      supportsWithdrawals: p.supportsWithdrawals ?? false,
      ...amounts(p),
    })),
  };
}
