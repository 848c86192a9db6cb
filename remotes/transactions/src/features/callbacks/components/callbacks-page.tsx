import { Alert, Button, Heading, HStack, Stack, Text } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { errorMessage, hasPermission, isAdmin, notify, useSelectedMerchant, useUser, type User } from '@paygate/sdk';
import { useState } from 'react';
import { collabLabel, useCollabs } from '../../../api/get-collabs';
import { CollabSelect } from '../../../components/collab-select';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { useDeleteCallback } from '../api/delete-callback';
import { useCallbacks, type CallbacksInput } from '../api/get-callbacks';
import type { CallbackUrl } from '../api/types';
import { useUpdateCallback } from '../api/update-callback';
import { draftOf, hasErrors, validateCallbackDraft, type CallbackDraft } from '../utils/form';
import { AddCallbackDialog } from './add-callback-dialog';
import { CallbacksTable, type RowEdit } from './callbacks-table';

/** The confirmations asked before a row edit and a delete (spec 02 §2). */
export const UPDATE_CONFIRMATION = 'Are you sure you want to update this callback URL?';
export const DELETE_CONFIRMATION = 'Are you sure you want to delete this callback URL?';

/**
 * listScope decides which callback URLs the page lists: the chosen collab's;
 * with no collab chosen, every callback URL of the user's merchant (the
 * sidebar's Current Merchant when it is one of theirs), so a merchant admin
 * sees all their URLs at once. A user without merchants (an admin) picks a
 * collab first: listing every merchant's URLs would take a call per merchant.
 */
export function listScope(user: Pick<User, 'merchantIds'>, collabId: number | null, selectedMerchant: number | null): CallbacksInput | null {
  if (collabId !== null) return { kind: 'collab', id: collabId };
  const merchant = selectedMerchant !== null && user.merchantIds.includes(selectedMerchant) ? selectedMerchant : user.merchantIds[0];
  return merchant === undefined ? null : { kind: 'merchant', id: merchant };
}

/** CallbacksPage is the Callbacks screen (route /callbacks, spec 02 §2): callback URLs with row editing, add and delete. */
export function CallbacksPage() {
  const user = useUser();
  if (!user) return null;
  return <Callbacks user={user} />;
}

type Pending = { kind: 'update'; row: CallbackUrl; draft: CallbackDraft } | { kind: 'delete'; row: CallbackUrl };

function Callbacks({ user }: { user: User }) {
  const admin = isAdmin(user);
  const canEdit = hasPermission(user, 'Edit Transactions');
  const queryClient = useQueryClient();
  const [selectedMerchant] = useSelectedMerchant();
  const [collabId, setCollabId] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<RowEdit | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);

  const collabs = useCollabs({});
  const scope = listScope(user, collabId, selectedMerchant);
  const list = useCallbacks(scope);
  const update = useUpdateCallback();
  const remove = useDeleteCallback();
  const reload = () => queryClient.invalidateQueries({ queryKey: ['callbacks'] });

  const collabName = (id: number) => {
    const c = collabs.data?.find((x) => x.id === id);
    return c ? collabLabel(c, admin) : `Collab ${id}`;
  };
  const merchantName = scope?.kind === 'merchant' ? (collabs.data?.find((c) => c.merchantId === scope.id)?.merchantName ?? `merchant ${scope.id}`) : '';

  function choose(id: number | null) {
    setCollabId(id);
    setEditing(null);
  }

  function save(row: CallbackUrl) {
    if (!editing) return;
    const errors = validateCallbackDraft(editing.draft);
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
          callbackUrl: draft.callbackUrl.trim(),
          maxAttempts: Number(draft.maxAttempts),
          isEnabled: draft.isEnabled,
          addSignature: draft.addSignature,
          transactionTypeId: draft.transactionTypeId,
        },
        {
          onSuccess: () => {
            notify.success('Callback URL updated', draft.callbackUrl.trim());
            setEditing(null);
            void reload();
          },
          onError: (err) => notify.error('Failed to update callback URL', errorMessage(err, 'Please try again.')),
          onSettled: () => setPending(null),
        },
      );
    } else {
      const { row } = pending;
      remove.mutate(
        { id: row.id },
        {
          onSuccess: () => {
            notify.success('Callback URL deleted', row.callbackUrl);
            void reload();
          },
          onError: (err) => notify.error('Failed to delete callback URL', errorMessage(err, 'Please try again.')),
          onSettled: () => setPending(null),
        },
      );
    }
  }

  const busyId = update.isPending ? (update.variables?.id ?? null) : remove.isPending ? (remove.variables?.id ?? null) : null;
  const emptyText =
    scope === null
      ? `${admin ? 'Select a collab' : 'Select a provider'} to see its callback URLs.`
      : `No callback URLs found.${canEdit ? ' Add one with Add Callback URL.' : ''}`;

  return (
    <Stack gap="4">
      <HStack justify="space-between" wrap="wrap">
        <Heading size="lg">Callbacks</Heading>
        {canEdit && (
          <Button size="sm" colorPalette="blue" onClick={() => setAdding(true)}>
            Add Callback URL
          </Button>
        )}
      </HStack>
      <HStack gap="3" align="end" wrap="wrap">
        <CollabSelect admin={admin} collabs={collabs.data} value={collabId} onChange={choose} loading={collabs.isPending} label={admin ? 'Collab' : 'Provider'} />
        {scope?.kind === 'merchant' && (
          <Text fontSize="sm" color="fg.muted" pb="1">
            Showing every callback URL of {merchantName}.
          </Text>
        )}
      </HStack>

      {list.isError ? (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Failed to fetch callback URLs: {errorMessage(list.error, 'Unknown error')}</Alert.Title>
          </Alert.Content>
          <Button size="sm" variant="outline" onClick={() => void list.refetch()}>
            Retry
          </Button>
        </Alert.Root>
      ) : (
        <CallbacksTable
          callbacks={scope ? (list.data ?? []) : []}
          loading={scope !== null && list.isPending}
          canEdit={canEdit}
          collabHeader={admin ? 'Collab' : 'Provider'}
          collabName={collabName}
          editing={editing}
          busyId={busyId}
          emptyText={emptyText}
          onEdit={(c) => setEditing({ id: c.id, draft: draftOf(c), errors: {} })}
          onDraft={(patch) => setEditing((e) => (e ? { ...e, draft: { ...e.draft, ...patch } } : e))}
          onCancelEdit={() => setEditing(null)}
          onSave={save}
          onDelete={(row) => setPending({ kind: 'delete', row })}
        />
      )}

      {adding && (
        <AddCallbackDialog
          admin={admin}
          collabs={collabs.data ?? []}
          collabId={collabId}
          // Show the list the new callback URL is in.
          onCreated={choose}
          onClose={() => setAdding(false)}
        />
      )}
      {pending && (
        <ConfirmDialog
          title={pending.kind === 'update' ? 'Update Callback URL' : 'Delete Callback URL'}
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
