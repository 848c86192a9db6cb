import { Alert, Button, Field, Stack, Text, Textarea } from '@chakra-ui/react';
import { DialogFrame } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import type { ApprovalRequest } from '../api/get-approvals';
import { rejectInput, REJECT_REASON_MAX } from '../api/reject-request';

interface Props {
  request: ApprovalRequest;
  pending: boolean;
  /** Why the rejection failed, in the server's words. */
  error: string | null;
  onReject: (reason: string) => void;
  onCancel: () => void;
}

/**
 * RejectDialog asks why a request is rejected (required: it is recorded as
 * the request's outcome) before rejecting it.
 */
export function RejectDialog({ request, pending, error, onReject, onCancel }: Props) {
  const [reason, setReason] = useState('');
  const [touched, setTouched] = useState(false);
  const parsed = rejectInput.safeParse({ id: request.id, reason });
  const reasonError = parsed.success ? undefined : parsed.error.issues.find((i) => i.path[0] === 'reason')?.message;

  function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (!parsed.success || pending) return;
    onReject(parsed.data.reason);
  }

  return (
    <DialogFrame
      title={`Reject request #${request.id}`}
      role="alertdialog"
      size="md"
      onClose={onCancel}
      dismissible={!pending}
      footer={
        <>
          <Button variant="outline" onClick={onCancel} disabled={pending}>
            Cancel
          </Button>
          <Button type="submit" form="reject-form" colorPalette="red" loading={pending}>
            Reject
          </Button>
        </>
      }
    >
      <form id="reject-form" onSubmit={submit} noValidate>
        <Stack gap={4}>
          <Text>
            Reject {request.title || request.action}, requested by {request.requestedByUsername || `user ${request.requestedBy}`}? Nothing is applied, and the
            requester sees your reason.
          </Text>
          <Field.Root required invalid={touched && !!reasonError}>
            <Field.Label>
              Reason
              <Field.RequiredIndicator />
            </Field.Label>
            <Textarea autoFocus rows={3} maxLength={REJECT_REASON_MAX} value={reason} onChange={(e) => setReason(e.target.value)} />
            <Field.ErrorText>{reasonError}</Field.ErrorText>
          </Field.Root>
          {error && (
            <Alert.Root status="error" role="alert">
              <Alert.Indicator />
              <Alert.Title>{error}</Alert.Title>
            </Alert.Root>
          )}
        </Stack>
      </form>
    </DialogFrame>
  );
}
