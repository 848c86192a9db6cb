import { z } from 'zod';

/**
 * The proof that the caller holds the second factor: a current code of the
 * app or a recovery code (exactly one).
 */
export const proofInput = z.union([
  z.object({ code: z.string().regex(/^\d{6}$/, 'Enter the 6 digits your authenticator app shows.') }),
  z.object({ recoveryCode: z.string().trim().min(1, 'Enter one of your recovery codes.') }),
]);

export type ProofInput = z.infer<typeof proofInput>;
