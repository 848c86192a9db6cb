import { Button, Stack } from '@chakra-ui/react';
import type { UseMutationResult } from '@tanstack/react-query';
import { DialogFrame, errorMessage, notify } from '@paygate/sdk';
import { useState, type ReactNode } from 'react';
import type { CollabOption } from '../api/get-collabs';
import { hasErrors, type DraftErrors } from '../utils/draft';
import { CollabField } from './collab-select';
import type { DraftForm } from './draft-input';
import { capitalized, type UrlEndpointTexts } from './url-endpoints';

/** AddUrlEndpointDialogProps configure an AddUrlEndpointDialog. */
export interface AddUrlEndpointDialogProps<Draft extends { collabId: number | null }, F extends string, Stored extends { collabId: number }, CreateInput> {
  texts: Pick<UrlEndpointTexts, 'noun' | 'title'>;
  collabs: readonly CollabOption[];
  /** The page's collab, preselected. */
  collabId: number | null;
  newDraft: (collabId: number | null) => Draft;
  validate: (draft: Draft) => DraftErrors<F | 'collabId'>;
  create: UseMutationResult<Stored, Error, CreateInput>;
  toCreate: (draft: Draft, collabId: number) => CreateInput;
  urlOf: (stored: Stored) => string;
  /** reload refreshes the lists after the create. */
  reload: () => void;
  /** Called with the collab of the endpoint just created. */
  onCreated?: (collabId: number) => void;
  onClose: () => void;
  /** The fields after the collaboration. */
  children: (form: DraftForm<Draft, F>) => ReactNode;
}

/** AddUrlEndpointDialog is the "Add …" dialog of a URL-endpoints screen: a collaboration and the endpoint's fields. */
export function AddUrlEndpointDialog<Draft extends { collabId: number | null }, F extends string, Stored extends { collabId: number }, CreateInput>(
  props: AddUrlEndpointDialogProps<Draft, F, Stored, CreateInput>,
) {
  const { texts, create, onClose } = props;
  const [draft, setDraft] = useState<Draft>(() => props.newDraft(props.collabId));
  const [submitted, setSubmitted] = useState(false);
  const errors: DraftErrors<F | 'collabId'> = submitted ? props.validate(draft) : {};
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));

  function save() {
    setSubmitted(true);
    const target = draft.collabId;
    if (hasErrors(props.validate(draft)) || target === null) return;
    create.mutate(props.toCreate(draft, target), {
      onSuccess: (stored) => {
        notify.success(`${capitalized(texts.noun)} created`, props.urlOf(stored));
        props.reload();
        props.onCreated?.(stored.collabId || target);
        onClose();
      },
      onError: (err) => notify.error(`Failed to create ${texts.noun}`, errorMessage(err, 'Please try again.')),
    });
  }

  return (
    <DialogFrame
      title={`Add ${texts.title}`}
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
        <CollabField collabs={props.collabs} value={draft.collabId} error={errors.collabId} onChange={(collabId) => set({ collabId } as Partial<Draft>)} />
        {props.children({ draft, errors, set })}
      </Stack>
    </DialogFrame>
  );
}
