// Action-bound confirmation (step-up) and four-eyes approval (issue 28,
// docs/contracts-approvals.md). A sensitive call the caller must confirm
// answers HTTP 428 with `{code: "confirmation_required", confirmation:
// {action, request}}`; the ApiClient hands that to the one registered
// confirmation handler (the shell's ConfirmationHost), which runs the
// ceremony and resolves with a token (the call is repeated once with the
// X-Paygate-Confirmation header), with `{approvalRequested}` (the change
// waits for another user) or with null (the user cancelled).

/** CONFIRMATION_HEADER carries the confirmation token on the repeated call. */
export const CONFIRMATION_HEADER = 'X-Paygate-Confirmation';

/** ConfirmationChallenge is the `confirmation` of a 428 answer. */
export interface ConfirmationChallenge {
  /** The canonical description of the call (JSON text). */
  action: string;
  /** The request's protobuf bytes, base64. */
  request: string;
}

/** ConfirmationOutcome: a token, an approval request created instead, or null when cancelled. */
export type ConfirmationOutcome = string | { approvalRequested: string } | null;

/** ConfirmationHandler drives the confirmation of one call. */
export type ConfirmationHandler = (challenge: ConfirmationChallenge) => Promise<ConfirmationOutcome>;

let handler: ConfirmationHandler | null = null;

/** setConfirmationHandler registers the handler (the shell does, once); null removes it. */
export function setConfirmationHandler(h: ConfirmationHandler | null): void {
  handler = h;
}

/** confirmationHandler returns the registered handler, if any. */
export function confirmationHandler(): ConfirmationHandler | null {
  return handler;
}

/** challengeFrom reads the `confirmation` of a 428 body, or null when it is not one. */
export function challengeFrom(body: unknown): ConfirmationChallenge | null {
  if (!body || typeof body !== 'object') return null;
  const b = body as Record<string, unknown>;
  if (b.code !== 'confirmation_required') return null;
  const c = b.confirmation as Record<string, unknown> | undefined;
  if (!c || typeof c.action !== 'string' || typeof c.request !== 'string') return null;
  return { action: c.action, request: c.request };
}

/** SENT_FOR_APPROVAL is the sentence of a change that now waits for approval. */
export const SENT_FOR_APPROVAL = 'Sent for approval: the change is applied once another user approves it.';

/**
 * signWithPasskey asserts the confirmation's WebAuthn request options (the
 * JSON text BeginConfirmation answers, bare or wrapped in publicKey) and
 * answers the assertion as JSON text, as FinishConfirmation takes it.
 */
export async function signWithPasskey(publicKeyOptions: string): Promise<string> {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const parsed = JSON.parse(publicKeyOptions || '{}') as Record<string, unknown>;
  const optionsJSON = (typeof parsed.publicKey === 'object' && parsed.publicKey !== null ? parsed.publicKey : parsed) as Parameters<typeof startAuthentication>[0]['optionsJSON'];
  return JSON.stringify(await startAuthentication({ optionsJSON }));
}
