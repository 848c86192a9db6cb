import { SimpleGrid } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { FlagSwitch } from '@paygate/sdk';
import type { CollabOption } from '../../../api/get-collabs';
import { AddUrlEndpointDialog } from '../../../components/add-url-endpoint-dialog';
import { DraftInput } from '../../../components/draft-input';
import { useCreateCallback } from '../api/create-callback';
import { callbackFields, MAX_ATTEMPTS_MAX, MAX_ATTEMPTS_MIN, newCallbackDraft, validateCallbackDraft } from '../utils/form';
import { CALLBACK_URL_INPUT, MAX_ATTEMPTS_INPUT } from './callback-columns';
import { CallbackTypeSelect } from './callback-fields';

interface Props {
  collabs: readonly CollabOption[];
  /** The page's collab, preselected. */
  collabId: number | null;
  /** Called with the collab of the callback URL just created. */
  onCreated?: (collabId: number) => void;
  onClose: () => void;
}

/** AddCallbackDialog is the "Add Callback URL" dialog (spec 02 §2, §5). */
export function AddCallbackDialog({ collabs, collabId, onCreated, onClose }: Props) {
  const queryClient = useQueryClient();
  const create = useCreateCallback();
  return (
    <AddUrlEndpointDialog
      texts={{ noun: 'callback URL', title: 'Callback URL' }}
      collabs={collabs}
      collabId={collabId}
      newDraft={newCallbackDraft}
      validate={validateCallbackDraft}
      create={create}
      toCreate={(draft, target) => ({ collabId: target, ...callbackFields(draft) })}
      urlOf={(c) => c.callbackUrl}
      reload={() => void queryClient.invalidateQueries({ queryKey: ['callbacks'] })}
      onCreated={onCreated}
      onClose={onClose}
    >
      {(form) => (
        <>
          <DraftInput form={form} {...CALLBACK_URL_INPUT} placeholder="https://merchant.example/callbacks" />
          <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
            <DraftInput form={form} {...MAX_ATTEMPTS_INPUT} helper={`From ${MAX_ATTEMPTS_MIN} to ${MAX_ATTEMPTS_MAX}`} />
            <CallbackTypeSelect label="Transaction type" value={form.draft.transactionTypeId} onChange={(t) => form.set({ transactionTypeId: t })} />
          </SimpleGrid>
          <SimpleGrid columns={{ base: 1, sm: 2 }} gap="4">
            <FlagSwitch label="Enabled" checked={form.draft.isEnabled} onChange={(on) => form.set({ isEnabled: on })} />
            <FlagSwitch label="Add signature" checked={form.draft.addSignature} onChange={(on) => form.set({ addSignature: on })} />
          </SimpleGrid>
        </>
      )}
    </AddUrlEndpointDialog>
  );
}
