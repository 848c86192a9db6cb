import { compareDecimal, isDecimal, roundDecimal } from '@paygate/sdk';
import type { AmountKey, Amounts } from '../api/types';

/** The amount fields by direction, with their labels. */
export const DEPOSIT_FIELDS: readonly { key: AmountKey; label: string }[] = [
  { key: 'minimalDepositAmount', label: 'Minimal deposit' },
  { key: 'maximalDepositAmount', label: 'Maximal deposit' },
];
export const WITHDRAWAL_FIELDS: readonly { key: AmountKey; label: string }[] = [
  { key: 'minimalWithdrawAmount', label: 'Minimal withdrawal' },
  { key: 'maximalWithdrawAmount', label: 'Maximal withdrawal' },
];
export const AMOUNT_KEYS: readonly AmountKey[] = [...DEPOSIT_FIELDS, ...WITHDRAWAL_FIELDS].map((f) => f.key);

/** The limit inputs' constants (spec 01 §9): PHP, minimum 0, step 100, two decimals. */
export const LIMIT_INPUT = { currency: 'PHP', min: 0, step: 100, decimals: 2 } as const;

/**
 * normalizeAmount makes an amount comparable and sendable: '' stays '' (no
 * limit); a decimal becomes a string with two decimals (rounded half away
 * from zero, exactly); anything else is returned trimmed (and fails
 * validation).
 */
export function normalizeAmount(value: string): string {
  const s = value.trim();
  return isDecimal(s) ? roundDecimal(s, LIMIT_INPUT.decimals) : s;
}

/** isValidAmount: empty, or a number ≥ 0 with at most two decimals. */
export function isValidAmount(value: string): boolean {
  const s = value.trim();
  if (s === '') return true;
  return /^\d+(\.\d{1,2})?$/.test(s) && compareDecimal(s, String(LIMIT_INPUT.min)) >= 0;
}

/** isChanged: the field's value differs from its initial one. */
export function isChanged(initial: string, current: string): boolean {
  return normalizeAmount(initial) !== normalizeAmount(current);
}

/**
 * changedAmounts returns only the amounts that differ from the initial
 * state (spec 01 §5), normalized to two decimals; keys outside `visible`
 * are never sent.
 */
export function changedAmounts(initial: Amounts, current: Amounts, visible: readonly AmountKey[] = AMOUNT_KEYS): Partial<Amounts> {
  const out: Partial<Amounts> = {};
  for (const key of visible) {
    if (isChanged(initial[key], current[key])) out[key] = normalizeAmount(current[key]);
  }
  return out;
}

/** visibleAmountKeys lists the fields shown for the supported directions (spec 01 §2 "Collab limits dialog"). */
export function visibleAmountKeys(deposits: boolean, withdrawals: boolean): AmountKey[] {
  return [...(deposits ? DEPOSIT_FIELDS : []), ...(withdrawals ? WITHDRAWAL_FIELDS : [])].map((f) => f.key);
}

/** pickAmounts copies the four amounts of a limits record. */
export function pickAmounts(a: Amounts): Amounts {
  return {
    minimalDepositAmount: a.minimalDepositAmount,
    maximalDepositAmount: a.maximalDepositAmount,
    minimalWithdrawAmount: a.minimalWithdrawAmount,
    maximalWithdrawAmount: a.maximalWithdrawAmount,
  };
}
