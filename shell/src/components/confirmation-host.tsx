import { Button, Field, Input, Link, List, Stack, Text } from '@chakra-ui/react';
import { api, ApiError, CodeInput, DialogFrame, errorMessage, notify, setConfirmationHandler, signWithPasskey, type ConfirmationChallenge, type ConfirmationOutcome } from '@paygate/sdk';
import { useEffect, useRef, useState } from 'react';

// The confirmation dialog of sensitive calls (issue 28, docs/contracts-approvals.md):
// the ApiClient hands a 428 `confirmation_required` to the handler this host
// registers; the host begins the confirmation at auth, shows the summary,
// asks the reason and the proof (passkey, authenticator code or a plain
// Confirm), finishes it and resolves with the token or the approval request.

/** BeginConfirmation's answer (JSON names of confirmations.proto). */
export interface BeginConfirmationJson {
  confirmationId: string;
  summary?: string[];
  title?: string;
  method?: 'webauthn' | 'totp' | 'none' | string;
  publicKeyOptions?: string;
  expiresAt?: string;
  approval?: { required?: boolean; approverPermission?: string; policyId?: number };
  digest?: string;
  reasonRequired?: boolean;
}

/** FinishConfirmation's answer: a token, or the id of the approval request created instead. */
export interface FinishConfirmationJson {
  token?: string;
  approvalRequestId?: string;
}

interface Pending {
  challenge: ConfirmationChallenge;
  resolve: (outcome: ConfirmationOutcome) => void;
}

/** isPrecondition: the user has neither a passkey nor two-factor (412, or 422 from a gateway that maps it so). */
function isPrecondition(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 412 || err.status === 422);
}

function ConfirmationDialog({ pending, onDone }: { pending: Pending; onDone: (o: ConfirmationOutcome) => void }) {
  const [begun, setBegun] = useState<BeginConfirmationJson | null>(null);
  const [reason, setReason] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<{ text: string; setup: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  // The change needs a reason before auth describes it (auth refuses to
  // begin a reason-required change without one): the reason field comes
  // first, then the summary, then the signature.
  const [reasonFirst, setReasonFirst] = useState(false);
  // The reason the current confirmation was begun with.
  const [begunWith, setBegunWith] = useState('');
  const started = useRef(false);

  const beginBody = (withReason: string) => ({ action: pending.challenge.action, request: pending.challenge.request, reason: withReason || undefined });

  async function begin(withReason: string) {
    setBusy(true);
    setError(null);
    try {
      setBegun(await api.post<BeginConfirmationJson>('auth', '/api/v1/confirmations', beginBody(withReason)));
      setBegunWith(withReason);
    } catch (err) {
      if (!withReason && err instanceof ApiError && err.status === 400 && /reason/i.test(err.message)) setReasonFirst(true);
      else setError({ text: errorMessage(err, 'The confirmation could not be started.'), setup: isPrecondition(err) });
    } finally {
      setBusy(false);
    }
  }

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void begin('');
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  async function sign() {
    if (!begun && !reasonFirst) return;
    if ((reasonFirst || begun?.reasonRequired) && !reason.trim()) {
      setError({ text: 'Enter a reason for this change.', setup: false });
      return;
    }
    if (!begun) {
      // Described only now that it has its reason: show what is signed before signing it.
      await begin(reason.trim());
      return;
    }
    setBusy(true);
    setError(null);
    try {
      let current = begun;
      // The reason is part of the signed action: begin again when it changed.
      if (reason.trim() !== begunWith) {
        current = await api.post<BeginConfirmationJson>('auth', '/api/v1/confirmations', beginBody(reason.trim()));
        setBegun(current);
        setBegunWith(reason.trim());
      }
      const finish: Record<string, string> = { confirmationId: current.confirmationId };
      if (current.method === 'webauthn') {
        finish.assertion = await signWithPasskey(current.publicKeyOptions ?? '');
      } else if (current.method === 'totp') {
        const digits = code.replace(/\s/g, '');
        if (!/^\d{6}$/.test(digits)) {
          setError({ text: 'Enter the 6-digit code from your authenticator app.', setup: false });
          setBusy(false);
          return;
        }
        finish.totpCode = digits;
      }
      const done = await api.post<FinishConfirmationJson>('auth', `/api/v1/confirmations/${encodeURIComponent(current.confirmationId)}/finish`, finish);
      if (done.token) onDone(done.token);
      else if (done.approvalRequestId) {
        notify.info('Sent for approval', `Request #${done.approvalRequestId}: the change is applied once another user approves it on the Approvals page.`);
        onDone({ approvalRequested: String(done.approvalRequestId) });
      }
      else setError({ text: 'The server answered without a confirmation.', setup: false });
    } catch (err) {
      const name = err instanceof Error || err instanceof DOMException ? err.name : '';
      const text = name === 'NotAllowedError' ? 'The passkey prompt was closed or timed out. Try again.' : errorMessage(err, 'The confirmation failed.');
      setError({ text, setup: isPrecondition(err) });
    } finally {
      setBusy(false);
    }
  }

  const method = begun?.method;
  const approval = begun?.approval?.required ? begun.approval : null;
  const label = !begun ? 'Review the change' : method === 'webauthn' ? 'Confirm with passkey' : approval ? 'Send for approval' : 'Confirm';
  return (
    <DialogFrame
      title={begun?.title ?? 'Confirm this change'}
      onClose={() => onDone(null)}
      footer={
        <>
          <Button variant="outline" onClick={() => onDone(null)}>
            Cancel
          </Button>
          <Button colorPalette="blue" loading={busy} disabled={!begun && !reasonFirst} onClick={() => void sign()}>
            {label}
          </Button>
        </>
      }
    >
      <Stack gap="4">
        {begun?.summary && begun.summary.length > 0 && (
          <List.Root aria-label="Summary of the change" ps="4">
            {begun.summary.map((line) => (
              <List.Item key={line}>{line}</List.Item>
            ))}
          </List.Root>
        )}
        {approval && <Text fontWeight="medium">This change needs approval by a user with the permission {approval.approverPermission}.</Text>}
        {reasonFirst && !begun && <Text>This change needs a reason. Enter it, then review the change before you confirm it.</Text>}
        {(begun || reasonFirst) && (
          <Field.Root required={reasonFirst || !!begun?.reasonRequired}>
            <Field.Label>
              Reason
              <Field.RequiredIndicator fallback={<Text as="span" color="fg.muted">(optional)</Text>} />
            </Field.Label>
            <Input autoFocus value={reason} onChange={(e) => setReason(e.target.value)} name="reason" />
          </Field.Root>
        )}
        {method === 'totp' && <CodeInput value={code} onChange={setCode} label="Authentication code" />}
        {error && (
          <Text role="alert" color="fg.error">
            {error.text}{' '}
            {error.setup && <Link href="/account-security">Go to Account Security</Link>}
          </Text>
        )}
      </Stack>
    </DialogFrame>
  );
}

/**
 * ConfirmationHost registers the console's confirmation handler and shows
 * the dialog of the call being confirmed; the shell mounts it once.
 */
export function ConfirmationHost() {
  const [queue, setQueue] = useState<Pending[]>([]);
  useEffect(() => {
    setConfirmationHandler((challenge) => new Promise((resolve) => setQueue((q) => [...q, { challenge, resolve }])));
    return () => setConfirmationHandler(null);
  }, []);
  const current = queue[0];
  if (!current) return null;
  return (
    <ConfirmationDialog
      key={current.challenge.action + current.challenge.request}
      pending={current}
      onDone={(outcome) => {
        current.resolve(outcome);
        setQueue((q) => q.slice(1));
      }}
    />
  );
}
