/** The parts of a request's canonical description the console shows (docs/contracts-approvals.md). */
export interface DescribedChange {
  /** The request's values that identify what changes. */
  targets: Record<string, unknown>;
  /** The whole request as the requester signed it (secrets as their SHA-256). */
  values: Record<string, unknown>;
  /** The target's values when the request was made: the change applies only while they hold. */
  observed: Record<string, unknown>;
  /** The gRPC method that applies the change. */
  method: string;
}

const asObject = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** parseDescription reads the canonical description (JSON text), or null when it is not one. */
export function parseDescription(text: string): DescribedChange | null {
  if (!text) return null;
  try {
    const d = asObject(JSON.parse(text));
    return { targets: asObject(d.targets), values: asObject(d.values), observed: asObject(d.observed), method: typeof d.method === 'string' ? d.method : '' };
  } catch {
    return null;
  }
}

/** ProofLine is who signed a request, in which role, with what. */
export interface ProofLine {
  role: string;
  username: string;
  kind: string;
}

/** parseProofs reads the proofs (JSON text each) of a request; one that is not JSON is skipped. */
export function parseProofs(proofs: readonly string[]): ProofLine[] {
  return proofs.flatMap((text) => {
    try {
      const p = asObject(JSON.parse(text));
      return [{ role: String(p.role ?? ''), username: String(p.username ?? ''), kind: String(p.kind ?? '') }];
    } catch {
      return [];
    }
  });
}

/** The proof kinds in words. */
export function proofKindLabel(kind: string): string {
  if (kind === 'webauthn') return 'passkey';
  if (kind === 'totp') return 'authenticator code';
  if (kind === 'none') return 'no step-up';
  return kind || 'unknown';
}

/** pretty renders a value as indented JSON. */
export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
