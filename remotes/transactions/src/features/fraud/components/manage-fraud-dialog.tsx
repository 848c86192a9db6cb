import { Button, Field, HStack, NativeSelect, Stack, Text, Textarea } from '@chakra-ui/react';
import { DialogFrame, errorMessage, FlagSwitch, notify } from '@paygate/sdk';
import { useState } from 'react';
import { useUpdateFraudStatus } from '../api/update-fraud-status';
import type { Fraud } from '../api/types';
import { DENIED, REVIEW_STATUSES, reviewProblem, type ReviewDraft } from '../utils/fraud';

interface Props {
  fraud: Fraud;
  /** Whether the reviewer may stop callbacks (Cancel Callbacks). */
  canCancelCallbacks: boolean;
  onClose: () => void;
}

/**
 * ManageFraudDialog is the "Manage fraud" dialog (spec 02 §2, §4): the review
 * status (any of the three), the notes, and a switch that stops the callbacks
 * of the fraud's transactions. Save needs a changed status or note, and
 * Denied needs a note.
 */
export function ManageFraudDialog({ fraud, canCancelCallbacks, onClose }: Props) {
  const [draft, setDraft] = useState<ReviewDraft>({ status: fraud.reviewStatus, notes: fraud.notes, cancelCallbacks: false });
  const update = useUpdateFraudStatus();
  const problem = reviewProblem(fraud, draft);
  const notesMissing = draft.status === DENIED && !draft.notes.trim();

  function save() {
    update.mutate(
      { id: fraud.id, status: draft.status, notes: draft.notes.trim(), isCallbacksSendingCanceled: draft.cancelCallbacks },
      {
        onSuccess: () => {
          notify.success('Fraud updated', `Fraud ${fraud.referenceId} saved.`);
          onClose();
        },
        onError: (err) => notify.error(`Failed to update status: ${errorMessage(err, 'Unknown error')}`),
      },
    );
  }

  return (
    <DialogFrame
      title="Manage fraud"
      onClose={onClose}
      size="md"
      footer={
        <HStack gap={2}>
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={save} disabled={problem !== null} loading={update.isPending}>
            Save
          </Button>
        </HStack>
      }
    >
      <Stack gap={4}>
        <Text fontSize="sm" color="fg.muted">
          {fraud.referenceId} · {fraud.clientId}
        </Text>
        <Text fontSize="sm">{fraud.reason}</Text>
        <Field.Root>
          <Field.Label>Status</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field aria-label="Status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: Number(e.target.value) })}>
              {REVIEW_STATUSES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Field.Root invalid={notesMissing} required={draft.status === DENIED}>
          <Field.Label>Notes</Field.Label>
          <Textarea aria-label="Notes" rows={4} maxLength={2000} value={draft.notes} onChange={(e) => setDraft({ ...draft, notes: e.target.value })} />
          {notesMissing && <Field.ErrorText>A note is required to deny a fraud.</Field.ErrorText>}
        </Field.Root>
        {canCancelCallbacks &&
          (fraud.isCallbacksSendingCanceled ? (
            <Text fontSize="sm">Callback sending of its transactions is cancelled.</Text>
          ) : (
            <FlagSwitch label="Cancel callbacks sending" checked={draft.cancelCallbacks} onChange={(on) => setDraft({ ...draft, cancelCallbacks: on })} />
          ))}
        {problem && !notesMissing && (
          <Text fontSize="sm" color="fg.muted">
            {problem}
          </Text>
        )}
      </Stack>
    </DialogFrame>
  );
}
