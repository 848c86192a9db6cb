import { useMutation } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import type { VerifyProofRequestJson, VerifyProofResponseJson } from '@paygate/gen/auth/v1/confirmations_pb';
import { z } from 'zod';

/** The input of a proof check: the proof object exactly as the activity entry recorded it. */
export const verifyProofInput = z.object({ proof: z.record(z.string(), z.unknown()) });

export type VerifyProofInput = z.infer<typeof verifyProofInput>;

/** ProofVerdict is auth's answer about one proof. */
export interface ProofVerdict {
  valid: boolean;
  /** 'webauthn' or 'totp'. */
  kind: string;
  /** Why the proof does not hold ('' when it does). */
  reason: string;
  userId: string;
  username: string;
}

/**
 * verifyProof asks auth to re-verify a recorded proof (POST
 * {authUrl}/api/v1/confirmations/verify with {proof: <the proof as JSON
 * text>}, any signed-in user; docs/contracts-approvals.md): a passkey's
 * signature against the credential's stored public key, or a TOTP proof's
 * MAC.
 */
export async function verifyProof(input: VerifyProofInput): Promise<ProofVerdict> {
  const { proof } = verifyProofInput.parse(input);
  const body: VerifyProofRequestJson = { proof: JSON.stringify(proof) };
  const answer = await api.post<VerifyProofResponseJson | undefined>('auth', '/api/v1/confirmations/verify', body);
  return {
    valid: answer?.valid === true,
    kind: answer?.kind ?? '',
    reason: answer?.reason ?? '',
    userId: answer?.userId ?? '',
    username: answer?.username ?? '',
  };
}

/** useVerifyProof is the mutation of verifyProof: one per proof row, run when the operator asks (Verify). */
export function useVerifyProof() {
  return useMutation({ mutationFn: verifyProof });
}
