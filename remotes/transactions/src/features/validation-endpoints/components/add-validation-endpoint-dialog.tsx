import { SimpleGrid } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { FlagSwitch } from '@paygate/sdk';
import type { CollabOption } from '../../../api/get-collabs';
import { AddUrlEndpointDialog } from '../../../components/add-url-endpoint-dialog';
import { DraftInput } from '../../../components/draft-input';
import { useCreateValidationEndpoint } from '../api/create-validation-endpoint';
import { endpointFields, newEndpointDraft, PRIORITY_MAX, PRIORITY_MIN, validateEndpointDraft } from '../utils/form';
import { ENDPOINT_URL_INPUT, PRIORITY_INPUT } from './endpoint-columns';

interface Props {
  collabs: readonly CollabOption[];
  /** The page's collab, preselected. */
  collabId: number | null;
  /** Called with the new endpoint's collab after a successful create. */
  onCreated: (collabId: number) => void;
  onClose: () => void;
}

/** AddValidationEndpointDialog is the "Add Validation Endpoint" dialog (spec 02 §2, §5). */
export function AddValidationEndpointDialog({ collabs, collabId, onCreated, onClose }: Props) {
  const queryClient = useQueryClient();
  const create = useCreateValidationEndpoint();
  return (
    <AddUrlEndpointDialog
      texts={{ noun: 'validation endpoint', title: 'Validation Endpoint' }}
      collabs={collabs}
      collabId={collabId}
      newDraft={newEndpointDraft}
      validate={validateEndpointDraft}
      create={create}
      toCreate={(draft, target) => ({ collabId: target, ...endpointFields(draft) })}
      urlOf={(e) => e.url}
      reload={() => void queryClient.invalidateQueries({ queryKey: ['validation-endpoints'] })}
      onCreated={onCreated}
      onClose={onClose}
    >
      {(form) => (
        <>
          <DraftInput form={form} {...ENDPOINT_URL_INPUT} placeholder="https://merchant.example/validate" />
          <DraftInput form={form} {...PRIORITY_INPUT} helper={`From ${PRIORITY_MIN} to ${PRIORITY_MAX}; lower is asked first`} w="40" />
          <SimpleGrid columns={{ base: 1, sm: 3 }} gap="4">
            <FlagSwitch label="Awaitable" checked={form.draft.awaitable} onChange={(on) => form.set({ awaitable: on })} />
            <FlagSwitch label="Cash In" checked={form.draft.forCashIn} onChange={(on) => form.set({ forCashIn: on })} />
            <FlagSwitch label="Cash Out" checked={form.draft.forCashOut} onChange={(on) => form.set({ forCashOut: on })} />
          </SimpleGrid>
        </>
      )}
    </AddUrlEndpointDialog>
  );
}
