import { Button, Field, Input, NativeSelect, SimpleGrid, Stack } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { DialogFrame, errorMessage, notify } from '@paygate/sdk';
import { useState } from 'react';
import { collabLabel, type CollabOption } from '../../../api/get-collabs';
import { FlagSwitch } from '../../../components/flag-switch';
import { useCreateValidationEndpoint } from '../api/create-validation-endpoint';
import { hasErrors, newEndpointDraft, PRIORITY_MAX, PRIORITY_MIN, validateEndpointDraft, type EndpointDraft } from '../utils/form';

interface Props {
  admin: boolean;
  collabs: readonly CollabOption[];
  /** The page's collab, preselected. */
  collabId: number | null;
  /** Called with the new endpoint's collab after a successful create. */
  onCreated: (collabId: number) => void;
  onClose: () => void;
}

/** AddValidationEndpointDialog is the "Add Validation Endpoint" dialog (spec 02 §2, §5). */
export function AddValidationEndpointDialog({ admin, collabs, collabId, onCreated, onClose }: Props) {
  const queryClient = useQueryClient();
  const create = useCreateValidationEndpoint();
  const [draft, setDraft] = useState<EndpointDraft>(() => newEndpointDraft(collabId));
  const [submitted, setSubmitted] = useState(false);
  const errors = submitted ? validateEndpointDraft(draft) : {};
  const set = (patch: Partial<EndpointDraft>) => setDraft((d) => ({ ...d, ...patch }));

  function save() {
    setSubmitted(true);
    const target = draft.collabId;
    if (hasErrors(validateEndpointDraft(draft)) || target === null) return;
    create.mutate(
      {
        collabId: target,
        url: draft.url.trim(),
        priority: Number(draft.priority),
        awaitable: draft.awaitable,
        forCashIn: draft.forCashIn,
        forCashOut: draft.forCashOut,
      },
      {
        onSuccess: (e) => {
          notify.success('Validation endpoint created', e.url);
          void queryClient.invalidateQueries({ queryKey: ['validation-endpoints'] });
          onCreated(e.collabId || target);
          onClose();
        },
        onError: (err) => notify.error('Failed to create validation endpoint', errorMessage(err, 'Please try again.')),
      },
    );
  }

  return (
    <DialogFrame
      title="Add Validation Endpoint"
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
        <Field.Root required invalid={!!errors.url}>
          <Field.Label>Endpoint URL</Field.Label>
          <Input size="sm" type="url" placeholder="https://merchant.example/validate" value={draft.url} onChange={(e) => set({ url: e.target.value })} />
          <Field.ErrorText>{errors.url}</Field.ErrorText>
        </Field.Root>
        <Field.Root required invalid={!!errors.priority} w="40">
          <Field.Label>Priority</Field.Label>
          <Input size="sm" type="number" min={PRIORITY_MIN} max={PRIORITY_MAX} step={1} value={draft.priority} onChange={(e) => set({ priority: e.target.value })} />
          <Field.ErrorText>{errors.priority}</Field.ErrorText>
          {!errors.priority && <Field.HelperText>{`From ${PRIORITY_MIN} to ${PRIORITY_MAX}; lower is asked first`}</Field.HelperText>}
        </Field.Root>
        <SimpleGrid columns={{ base: 1, sm: 3 }} gap="4">
          <FlagSwitch label="Awaitable" checked={draft.awaitable} onChange={(on) => set({ awaitable: on })} />
          <FlagSwitch label="Cash In" checked={draft.forCashIn} onChange={(on) => set({ forCashIn: on })} />
          <FlagSwitch label="Cash Out" checked={draft.forCashOut} onChange={(on) => set({ forCashOut: on })} />
        </SimpleGrid>
      </Stack>
    </DialogFrame>
  );
}
