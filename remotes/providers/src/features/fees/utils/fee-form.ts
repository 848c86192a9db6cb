import { compareDecimal, isDecimal, roundDecimal, trimDecimal } from '@paygate/sdk';
import type { FeeInput } from '../api/types';
import type { Fee } from '../api/types';

/** The fee types of spec 02 §4. */
export const FEE_TYPES = [
  { id: 0, label: 'None' },
  { id: 1, label: 'Percent' },
  { id: 2, label: 'Fixed' },
] as const;

/** The transaction types a fee may name; 0 is both. */
export const TRANSACTION_TYPES = [
  { id: 0, label: 'All' },
  { id: 1, label: 'Deposit' },
  { id: 2, label: 'Withdrawal' },
] as const;

/** Who pays the fee (spec 02 §3: 1 client fee, else merchant fee). */
export const PAYERS = [
  { id: 2, label: 'Merchant fee' },
  { id: 1, label: 'Client fee' },
] as const;

/** The page sizes of the fee list and its default (spec 02 §9: page 1, size 5). */
export const FEE_PAGE_SIZES = [5, 10, 20, 30] as const;
export const DEFAULT_FEE_PAGE_SIZE = 5;

export const MAX_PRIORITY = 1_000_000;

export const feeTypeLabel = (t: number) => FEE_TYPES.find((f) => f.id === t)?.label ?? 'None';
export const transactionTypeLabel = (t: number) => TRANSACTION_TYPES.find((f) => f.id === t)?.label ?? 'All';
export const payerLabel = (p: number) => (p === 1 ? 'Client fee' : 'Merchant fee');

/** feeValueText says what a fee charges: "1.5%", "15.00 PHP" or "No fee". */
export function feeValueText(f: Pick<Fee, 'feeType' | 'value' | 'currencyFrom'>): string {
  const ok = isDecimal(f.value);
  if (f.feeType === 1) return `${ok ? trimDecimal(f.value) : f.value}%`;
  if (f.feeType === 2) return `${ok ? roundDecimal(f.value, 2) : f.value} ${f.currencyFrom}`.trim();
  return 'No fee';
}

/** amountRangeText says a fee's amounts: "Any amount", "From 10.00", "Up to 500.00" or "10.00 – 500.00". */
export function amountRangeText(min: string, max: string): string {
  if (!min && !max) return 'Any amount';
  if (!max) return `From ${min}`;
  if (!min) return `Up to ${max}`;
  return `${min} – ${max}`;
}

/** FeeForm is the dialog's state: every field as the inputs hold it. */
export interface FeeForm {
  collabId: string;
  transactionType: string;
  payTypeId: string;
  currencyFromId: string;
  currencyToId: string;
  amountMin: string;
  amountMax: string;
  priority: string;
  enabled: boolean;
  feeType: string;
  value: string;
  payer: string;
}

/** formOf is the form of a fee, or of a new fee (on collabId when given). */
export function formOf(f: Fee | null, collabId?: number): FeeForm {
  if (!f) {
    return {
      collabId: collabId ? String(collabId) : '',
      transactionType: '0',
      payTypeId: '0',
      currencyFromId: '',
      currencyToId: '',
      amountMin: '',
      amountMax: '',
      priority: '0',
      enabled: true,
      feeType: '1',
      value: '',
      payer: '2',
    };
  }
  return {
    collabId: String(f.collabId),
    transactionType: String(f.transactionType),
    payTypeId: String(f.payTypeId),
    currencyFromId: String(f.currencyFromId || ''),
    currencyToId: String(f.currencyToId || ''),
    amountMin: f.amountMin,
    amountMax: f.amountMax,
    priority: String(f.priority),
    enabled: f.enabled,
    feeType: String(f.feeType),
    // Four decimals on the wire; the operator typed fewer.
    value: isDecimal(f.value) ? trimDecimal(f.value) : f.value,
    payer: String(f.payer || 2),
  };
}

const AMOUNT = /^\d{1,15}(\.\d{1,2})?$/;
const VALUE = /^\d{1,14}(\.\d{1,4})?$/;

export type FeeErrors = Partial<Record<keyof FeeForm, string>>;

/**
 * validateFee checks the form as the server will (docs/contracts-fees.md):
 * a message per bad field. requireCollab is set for users who may not save a
 * global fee.
 */
export function validateFee(form: FeeForm, requireCollab: boolean): FeeErrors {
  const e: FeeErrors = {};
  if (requireCollab && (form.collabId === '' || form.collabId === '0')) e.collabId = 'Collaboration is required.';
  if (!form.currencyFromId) e.currencyFromId = 'Currency from is required.';
  if (!form.currencyToId) e.currencyToId = 'Currency to is required.';
  for (const k of ['amountMin', 'amountMax'] as const) {
    if (form[k].trim() !== '' && !AMOUNT.test(form[k].trim())) e[k] = 'Enter an amount of 0 or more with at most two decimals.';
  }
  if (!e.amountMin && !e.amountMax && form.amountMin.trim() && form.amountMax.trim() && compareDecimal(form.amountMin, form.amountMax) > 0) {
    e.amountMax = 'The maximum amount must not be below the minimum amount.';
  }
  const type = Number(form.feeType);
  const value = form.value.trim();
  if (type !== 0) {
    if (value === '') e.value = 'Value is required.';
    else if (!VALUE.test(value)) e.value = 'Enter a number of 0 or more with at most four decimals.';
    else if (type === 1 && compareDecimal(value, '100') > 0) e.value = 'A percentage must be at most 100.';
  } else if (value !== '' && !(isDecimal(value) && compareDecimal(value, '0') === 0)) {
    e.value = 'A fee of type None has no value.';
  }
  const p = form.priority.trim();
  if (!/^\d+$/.test(p) || Number(p) > MAX_PRIORITY) e.priority = `Priority must be a whole number from 0 to ${MAX_PRIORITY}.`;
  return e;
}

/** inputOf is the body the server takes for a valid form. */
export function inputOf(form: FeeForm): FeeInput {
  const type = Number(form.feeType);
  return {
    collabId: Number(form.collabId || 0),
    transactionType: Number(form.transactionType),
    payTypeId: Number(form.payTypeId),
    currencyFromId: Number(form.currencyFromId),
    currencyToId: Number(form.currencyToId),
    amountMin: form.amountMin.trim(),
    amountMax: form.amountMax.trim(),
    priority: Number(form.priority.trim()),
    enabled: form.enabled,
    feeType: type,
    value: type === 0 ? '0' : form.value.trim(),
    payer: Number(form.payer),
  };
}
