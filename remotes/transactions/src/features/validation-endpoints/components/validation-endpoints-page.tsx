import { Button, HStack } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { hasPermission, mayCall, NoPermission, notify, PageFrame, SCREENS, seesAllMerchants, useUser, type User } from '@paygate/sdk';
import { useState } from 'react';
import { collabNamer, useCollabs } from '../../../api/get-collabs';
import { CollabSelect } from '../../../components/collab-select';
import { UrlEndpoints, type UrlEndpointTexts } from '../../../components/url-endpoints';
import { useDeleteValidationEndpoint } from '../api/delete-validation-endpoint';
import { useValidationEndpoints } from '../api/get-validation-endpoints';
import { useUpdateValidationEndpoint } from '../api/update-validation-endpoint';
import { endpointDraftOf, endpointFields, validateEndpointDraft } from '../utils/form';
import { AddValidationEndpointDialog } from './add-validation-endpoint-dialog';
import { endpointColumns } from './endpoint-columns';

/** The texts of spec 02 §2 and the confirmations asked before a row edit and a delete. */
export const SELECT_COLLAB_FIRST = 'Please select a collaboration before searching.';
export const UPDATE_CONFIRMATION = 'Are you sure you want to update this validation endpoint?';
export const DELETE_CONFIRMATION = 'Are you sure you want to delete this validation endpoint?';

const TEXTS: UrlEndpointTexts = {
  noun: 'validation endpoint',
  plural: 'validation endpoints',
  title: 'Validation Endpoint',
  updateConfirmation: UPDATE_CONFIRMATION,
  deleteConfirmation: DELETE_CONFIRMATION,
};

/**
 * ValidationEndpointsPage is the Validation Endpoints screen (route
 * /validation-endpoints, spec 02 §2). The route admits admins and merchant
 * admins (§6); the page itself needs Edit Transactions, as §2 says.
 */
export function ValidationEndpointsPage() {
  const user = useUser();
  if (!hasPermission(user, 'Edit Transactions') || !user) return <NoPermission />;
  return <ValidationEndpoints user={user} />;
}

function ValidationEndpoints({ user }: { user: User }) {
  const admin = seesAllMerchants(user);
  // Each control shows only when the server's rule for its call lets the user in (docs/contracts.md).
  const may = {
    create: mayCall(user, 'POST /api/v1/collabs/validation-endpoints'),
    update: mayCall(user, 'POST /api/v1/collabs/validation-endpoints/{id}'),
    delete: mayCall(user, 'DELETE /api/v1/collabs/validation-endpoints/{id}'),
  };
  const queryClient = useQueryClient();
  const [collabId, setCollabId] = useState<number | null>(null);
  const [searched, setSearched] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  // A search or a clear drops an open row edit.
  const [listKey, setListKey] = useState(0);

  const collabs = useCollabs({});
  const list = useValidationEndpoints(searched);
  const update = useUpdateValidationEndpoint();
  const remove = useDeleteValidationEndpoint();
  const reload = () => void queryClient.invalidateQueries({ queryKey: ['validation-endpoints'] });
  const collabName = collabNamer(collabs.data, admin);

  function search() {
    if (collabId === null) {
      notify.warning(SELECT_COLLAB_FIRST);
      return;
    }
    setListKey((k) => k + 1);
    if (collabId === searched) void list.refetch();
    else setSearched(collabId);
  }

  function clear() {
    setCollabId(null);
    setSearched(null);
    setListKey((k) => k + 1);
  }

  const emptyText =
    searched === null ? 'Select a collaboration and press Search to see its validation endpoints.' : 'No validation endpoints found for this collaboration.';

  return (
    <PageFrame title={SCREENS.validationEndpoints.title}>
      <HStack gap="3" align="end" wrap="wrap">
        <CollabSelect admin={admin} collabs={collabs.data} value={collabId} onChange={setCollabId} loading={collabs.isPending} label={admin ? 'Collab' : 'Provider'} />
        <Button size="sm" onClick={search} loading={searched !== null && list.isFetching}>
          Search
        </Button>
        <Button size="sm" variant="outline" onClick={clear}>
          Clear
        </Button>
        {may.create && (
          <Button size="sm" colorPalette="blue" onClick={() => setAdding(true)}>
            Add
          </Button>
        )}
      </HStack>

      <UrlEndpoints
        key={listKey}
        texts={TEXTS}
        testId="endpoint"
        columns={endpointColumns(admin, collabs.data ?? [])}
        rows={searched === null ? [] : (list.data ?? [])}
        loading={searched !== null && list.isPending}
        canUpdate={may.update}
        canDelete={may.delete}
        emptyText={emptyText}
        list={list}
        draftOf={endpointDraftOf}
        validate={validateEndpointDraft}
        update={update}
        toUpdate={(row, draft) => ({ id: row.id, collabId: draft.collabId ?? row.collabId, ...endpointFields(draft) })}
        updatedUrl={(stored, draft) => stored.url || draft.url.trim()}
        onUpdated={(stored, row, draft) => {
          const now = stored.collabId || draft.collabId;
          if (now && now !== row.collabId) {
            notify.warning('Collaboration Changed', `The endpoint now belongs to ${collabName(now)} and has left this list.`);
          }
        }}
        remove={remove}
        urlOf={(row) => row.url}
        reload={reload}
      />

      {adding && (
        <AddValidationEndpointDialog
          collabs={collabs.data ?? []}
          collabId={collabId}
          onCreated={(id) => {
            // Show the list the new endpoint is in.
            setCollabId(id);
            setSearched(id);
          }}
          onClose={() => setAdding(false)}
        />
      )}
    </PageFrame>
  );
}
