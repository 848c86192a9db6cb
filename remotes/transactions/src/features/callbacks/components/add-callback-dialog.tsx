import { Button, Field, Input, NativeSelect, SimpleGrid, Stack } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { DialogFrame, errorMessage, notify } from '@paygate/sdk';
import { useState } from 'react';
import { collabLabel, type CollabOption } from '../../../api/get-collabs';
import { useCreateCallback } from '../api/create-callback';
import { hasErrors, MAX_ATTEMPTS_MAX, MAX_ATTEMPTS_MIN, newCallbackDraft, validateCallbackDraft, type CallbackDraft } from '../utils/form';
import { FlagSwitch } from '../../../components/flag-switch';
import { CallbackTypeSelect } from './callback-fields';

interface Props {
  admin: boolean;
  collabs: readonly CollabOption[];
  /** The page's collab, preselected. */
  collabId: number | null;
  /** Called with the collab of the callback URL just created. */
  onCreated?: (collabId: number) => void;
  onClose: () => void;
}

/** AddCallbackDialog is the "Add Callback URL" dialog (spec 02 §2, §5). */
export function AddCallbackDialog({ admin, collabs, collabId, onCreated, onClose }: Props) {
  const queryClient = useQueryClient();
  const create = useCreateCallback();
  const [draft, setDraft] = useState<CallbackDraft>(() => newCallbackDraft(collabId));
  const [submitted, setSubmitted] = useState(false);
  const errors = submitted ? validateCallbackDraft(draft) : {};
  const set = (patch: Partial<CallbackDraft>) => setDraft((d) => ({ ...d, ...patch }));

  function save() {
    setSubmitted(true);
    if (hasErrors(validateCallbackDraft(draft)) || draft.collabId === null) return;
    const target = draft.collabId;
    create.mutate(
      {
        collabId: draft.collabId,
        callbackUrl: draft.callbackUrl.trim(),
        maxAttempts: Number(draft.maxAttempts),
        isEnabled: draft.isEnabled,
        addSignature: draft.addSignature,
        transactionTypeId: draft.transactionTypeId,
      },
      {
        onSuccess: (c) => {
          notify.success('Callback URL created', c.callbackUrl);
          void queryClient.invalidateQueries({ queryKey: ['callbacks'] });
          onCreated?.(c.collabId || target);
          onClose();
        },
        onError: (err) => notify.error('Failed to create callback URL', errorMessage(err, 'Please try again.')),
      },
    );
  }

  return (
    <DialogFrame
      title="Add Callback URL"
      onClose={onClose}
      footer={
        <>
          <Button variant="outline" onClick={onClose} disabled={create.isPending}>
            Cancel
          </Button>
          <Button colorPalette="blue" loading={create.isPending} onClick={save}>
            Save
          </Button>
        </>
      }
    >
      <Stack gap="4">
        <Field.Root required invalid={!!errors.collabId}>
          <Field.Label>Collaboration</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field value={draft.collabId ?? ''} onChange={(e) => set({ collabId: e.target.value ? Number(e.target.value) : null })}>
              <option value="">Select a collaboration</option>
              {collabs.map((c) => (
                <option key={c.id} value={c.id}>
                  {collabLabel(c, admin)}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
          <Field.ErrorText>{errors.collabId}</Field.ErrorText>
        </Field.Root>
        <Field.Root required invalid={!!errors.callbackUrl}>
          <Field.Label>Callback URL</Field.Label>
          <Input size="sm" type="url" placeholder="https://merchant.example/callbacks" value={draft.callbackUrl} onChange={(e) => set({ callbackUrl: e.target.value })} />
          <Field.ErrorText>{errors.callbackUrl}</Field.ErrorText>
        </Field.Root>
        <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
          <Field.Root required invalid={!!errors.maxAttempts}>
            <Field.Label>Max attempts</Field.Label>
            <Input size="sm" type="number" min={MAX_ATTEMPTS_MIN} max={MAX_ATTEMPTS_MAX} step={1} value={draft.maxAttempts} onChange={(e) => set({ maxAttempts: e.target.value })} />
            <Field.ErrorText>{errors.maxAttempts}</Field.ErrorText>
            {!errors.maxAttempts && <Field.HelperText>{`From ${MAX_ATTEMPTS_MIN} to ${MAX_ATTEMPTS_MAX}`}</Field.HelperText>}
          </Field.Root>
          <CallbackTypeSelect label="Transaction type" value={draft.transactionTypeId} onChange={(t) => set({ transactionTypeId: t })} />
        </SimpleGrid>
        <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
          <FlagSwitch label="Enabled" checked={draft.isEnabled} onChange={(on) => set({ isEnabled: on })} />
          <FlagSwitch label="Add signature" checked={draft.addSignature} onChange={(on) => set({ addSignature: on })} />
        </SimpleGrid>
      </Stack>
    </DialogFrame>
  );
}
