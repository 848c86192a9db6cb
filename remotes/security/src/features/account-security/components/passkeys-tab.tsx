import { Alert, Button, HStack, Stack, Text } from '@chakra-ui/react';
import type { PasskeyJson } from '@paygate/gen/auth/v1/webauthn_pb';
import { ConfirmDialog, DataTable, notify, passkeysSupported, rememberPasskey, useTimezone, useUser, type DataColumn } from '@paygate/sdk';
import { useState } from 'react';
import { useDeletePasskey } from '../api/delete-passkey';
import { usePasskeys } from '../api/get-passkeys';
import { PASSKEY_TEXTS } from '../passkey-texts';
import { AddPasskeyDialog } from './add-passkey-dialog';
import { PasskeyDate } from './passkey-date';

const nameOf = (p: PasskeyJson) => p.description || 'Unnamed passkey';

/** PasskeysTab lists, adds and removes the signed-in user's passkeys. */
export function PasskeysTab() {
  const user = useUser();
  const [zone] = useTimezone();
  const supported = passkeysSupported();
  const list = usePasskeys();
  const remove = useDeletePasskey();
  const [adding, setAdding] = useState(false);
  const [removing, setRemoving] = useState<PasskeyJson | null>(null);
  const passkeys = list.data ?? [];
  const now = list.dataUpdatedAt || Date.now();

  function confirmRemove(p: PasskeyJson) {
    remove.mutate(
      { id: p.id ?? '' },
      {
        onSuccess: () => {
          setRemoving(null);
          notify.success('Passkey Removed', `${nameOf(p)} has been removed.`);
          // The last passkey gone: this browser no longer offers a passkey sign-in for the user.
          if (user && passkeys.filter((x) => x.id !== p.id).length === 0) rememberPasskey(user.username, false);
        },
        onError: () => {
          setRemoving(null);
          notify.error(PASSKEY_TEXTS.removeFailed);
        },
      },
    );
  }

  const columns: DataColumn<PasskeyJson>[] = [
    { key: 'name', header: 'Name', cell: nameOf },
    { key: 'created', header: 'Created', cell: (p) => <PasskeyDate value={p.createdAt} now={now} zone={zone} /> },
    { key: 'lastUsed', header: 'Last Used', cell: (p) => <PasskeyDate value={p.lastUsed} now={now} zone={zone} /> },
    {
      key: 'actions',
      header: 'Actions',
      cell: (p) => (
        <Button size="xs" variant="outline" colorPalette="red" aria-label={`Remove passkey ${nameOf(p)}`} disabled={remove.isPending} onClick={() => setRemoving(p)}>
          Remove
        </Button>
      ),
    },
  ];

  return (
    <Stack gap={4}>
      <HStack justify="space-between" wrap="wrap">
        <Text color="fg.muted">Passkeys let you sign in without a password.</Text>
        {supported && list.isSuccess && passkeys.length > 0 && (
          <Button size="sm" colorPalette="blue" onClick={() => setAdding(true)}>
            Add New Passkey
          </Button>
        )}
      </HStack>
      {!supported && (
        <Alert.Root status="warning">
          <Alert.Indicator />
          <Alert.Title>{PASSKEY_TEXTS.unsupported}</Alert.Title>
        </Alert.Root>
      )}
      <DataTable
        label="Passkeys"
        columns={columns}
        rows={passkeys}
        rowKey={(p) => p.id ?? ''}
        loading={list.isPending}
        loadingRows={2}
        empty="No passkeys yet"
        emptyDetail="Sign in with your fingerprint, face or screen lock instead of a password."
        emptyAction={
          supported && (
            <Button colorPalette="blue" onClick={() => setAdding(true)}>
              Add Your First Passkey
            </Button>
          )
        }
        error={list.isError && PASSKEY_TEXTS.loadFailed}
        onRetry={() => void list.refetch()}
        retrying={list.isFetching}
      />
      {adding && <AddPasskeyDialog onClose={() => setAdding(false)} />}
      {removing && (
        <ConfirmDialog
          title="Remove Passkey"
          message={`Remove the passkey "${nameOf(removing)}"? You will no longer be able to sign in with it.`}
          confirmLabel="Remove"
          destructive
          pending={remove.isPending}
          onCancel={() => setRemoving(null)}
          onConfirm={() => confirmRemove(removing)}
        />
      )}
    </Stack>
  );
}
