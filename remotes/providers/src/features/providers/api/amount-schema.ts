import { z } from 'zod';

/** amount is a limit amount: '' (no limit) or a decimal ≥ 0 with at most two fraction digits. */
export const amount = z.string().regex(/^(\d+(\.\d{1,2})?)?$/, 'An amount is a number ≥ 0 with at most two decimals.');

/** amountsInput are the four optional amounts of a limits change; an absent one stays as it is. */
export const amountsInput = z.object({
  minimalDepositAmount: amount.optional(),
  maximalDepositAmount: amount.optional(),
  minimalWithdrawAmount: amount.optional(),
  maximalWithdrawAmount: amount.optional(),
});
