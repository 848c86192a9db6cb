import { Alert, Button, Heading, HStack, Stack, Text } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { errorMessage, hasPermission, isAdmin, notify, useUser, type User } from '@paygate/sdk';
import { useState } from 'react';
import { collabLabel, useCollabs } from '../../../api/get-collabs';
import { CollabSelect } from '../../../components/collab-select';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useDeleteValidationEndpoint } from '../api/delete-validation-endpoint';
import { useValidationEndpoints } from '../api/get-validation-endpoints';
import type { ValidationEndpoint } from '../api/types';
import { useUpdateValidationEndpoint } from '../api/update-validation-endpoint';
import { endpointDraftOf, hasErrors, validateEndpointDraft, type EndpointDraft } from '../utils/form';
import { AddValidationEndpointDialog } from './add-validation-endpoint-dialog';
import { ValidationEndpointsTable, type EndpointEdit } from './validation-endpoints-table';

/** The texts of spec 02 §2 and the confirmations asked before a row edit and a delete. */
export const SELECT_COLLAB_FIRST = 'Please select a collaboration before searching.';
export const UPDATE_CONFIRMATION = 'Are you sure you want to update this validation endpoint?';
export const DELETE_CONFIRMATION = 'Are you sure you want to delete this validation endpoint?';

/**
 * ValidationEndpointsPage is the Validation Endpoints screen (route
 * /validation-endpoints, spec 02 §2). The route admits admins and merchant
 * admins (§6); the page itself needs Edit Transactions, as §2 says.
 */
export function ValidationEndpointsPage() {
  const user = useUser();
  if (!hasPermission(user, 'Edit Transactions') || !user) return <Text>You don&apos;t have permission to view this page.</Text>;
  return <ValidationEndpoints user={user} />;
}

type Pending = { kind: 'update'; row: ValidationEndpoint; draft: EndpointDraft } | { kind: 'delete'; row: ValidationEndpoint };

function ValidationEndpoints({ user }: { user: User }) {
  const admin = isAdmin(user);
  const queryClient = useQueryClient();
  const [collabId, setCollabId] = useState<number | null>(null);
  const [searched, setSearched] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<EndpointEdit | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);

  const collabs = useCollabs({});
  const list = useValidationEndpoints(searched);
  const update = useUpdateValidationEndpoint();
  const remove = useDeleteValidationEndpoint();
  const reload = () => queryClient.invalidateQueries({ queryKey: ['validation-endpoints'] });
  const collabName = (id: number) => {
    const c = collabs.data?.find((x) => x.id === id);
    return c ? collabLabel(c, admin) : `collab ${id}`;
  };

  function search() {
    if (collabId === null) {
      notify.warning(SELECT_COLLAB_FIRST);
      return;
    }
    setEditing(null);
    if (collabId === searched) void list.refetch();
    else setSearched(collabId);
  }

  function clear() {
    setCollabId(null);
    setSearched(null);
    setEditing(null);
  }

  function save(row: ValidationEndpoint) {
    if (!editing) return;
    const errors = validateEndpointDraft(editing.draft);
    setEditing({ ...editing, errors });
    if (hasErrors(errors)) return;
    setPending({ kind: 'update', row, draft: editing.draft });
  }

  function confirm() {
    if (!pending) return;
    if (pending.kind === 'update') {
      const { row, draft } = pending;
      update.mutate(
        {
          id: row.id,
          collabId: draft.collabId ?? row.collabId,
          url: draft.url.trim(),
          priority: Number(draft.priority),
          awaitable: draft.awaitable,
          forCashIn: draft.forCashIn,
          forCashOut: draft.forCashOut,
        },
        {
          onSuccess: (stored) => {
            notify.success('Validation endpoint updated', stored.url || draft.url.trim());
            const now = stored.collabId || draft.collabId;
            if (now && now !== row.collabId) {
              notify.warning('Collaboration Changed', `The endpoint now belongs to ${collabName(now)} and has left this list.`);
            }
            setEditing(null);
            void reload();
          },
          onError: (err) => notify.error('Failed to update validation endpoint', errorMessage(err, 'Please try again.')),
          onSettled: () => setPending(null),
        },
      );
    } else {
      const { row } = pending;
      remove.mutate(
        { id: row.id },
        {
          onSuccess: () => {
            notify.success('Validation endpoint deleted', row.url);
            void reload();
          },
          onError: (err) => notify.error('Failed to delete validation endpoint', errorMessage(err, 'Please try again.')),
          onSettled: () => setPending(null),
        },
      );
    }
  }

  const busyId = update.isPending ? (update.variables?.id ?? null) : remove.isPending ? (remove.variables?.id ?? null) : null;
  const emptyText =
    searched === null ? 'Select a collaboration and press Search to see its validation endpoints.' : 'No validation endpoints found for this collaboration.';

  return (
    <Stack gap="4">
      <Heading size="lg">Validation Endpoints</Heading>
      <HStack gap="3" align="end" wrap="wrap">
        <CollabSelect admin={admin} collabs={collabs.data} value={collabId} onChange={setCollabId} loading={collabs.isPending} label={admin ? 'Collab' : 'Provider'} />
        <Button size="sm" onClick={search} loading={searched !== null && list.isFetching}>
          Search
        </Button>
        <Button size="sm" variant="outline" onClick={clear}>
          Clear
        </Button>
        <Button size="sm" colorPalette="blue" onClick={() => setAdding(true)}>
          Add
        </Button>
      </HStack>

      {list.isError ? (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Failed to fetch validation endpoints: {errorMessage(list.error, 'Unknown error')}</Alert.Title>
          </Alert.Content>
          <Button size="sm" variant="outline" onClick={() => void list.refetch()}>
            Retry
          </Button>
        </Alert.Root>
      ) : (
        <ValidationEndpointsTable
          endpoints={searched === null ? [] : (list.data ?? [])}
          loading={searched !== null && list.isPending}
          admin={admin}
          collabs={collabs.data ?? []}
          editing={editing}
          busyId={busyId}
          emptyText={emptyText}
          onEdit={(e) => setEditing({ id: e.id, draft: endpointDraftOf(e), errors: {} })}
          onDraft={(patch) => setEditing((e) => (e ? { ...e, draft: { ...e.draft, ...patch } } : e))}
          onCancelEdit={() => setEditing(null)}
          onSave={save}
          onDelete={(row) => setPending({ kind: 'delete', row })}
        />
      )}

      {adding && (
        <AddValidationEndpointDialog
          admin={admin}
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
      {pending && (
        <ConfirmDialog
          title={pending.kind === 'update' ? 'Update Validation Endpoint' : 'Delete Validation Endpoint'}
          message={pending.kind === 'update' ? UPDATE_CONFIRMATION : DELETE_CONFIRMATION}
          confirmLabel={pending.kind === 'update' ? 'Update' : 'Delete'}
          destructive={pending.kind === 'delete'}
          pending={update.isPending || remove.isPending}
          onCancel={() => setPending(null)}
          onConfirm={confirm}
        />
      )}
    </Stack>
  );
}
