import { Alert, Button, EmptyState, HStack, Skeleton, Stack, Table, Text } from '@chakra-ui/react';
import type { PasskeyJson } from '@paygate/gen/auth/v1/webauthn_pb';
import { ConfirmDialog, notify, passkeysSupported, rememberPasskey, useTimezone, useUser } from '@paygate/sdk';
import { useState } from 'react';
import { useDeletePasskey } from '../api/delete-passkey';
import { usePasskeys } from '../api/get-passkeys';
import { PASSKEY_TEXTS } from '../passkey-texts';
import { AddPasskeyDialog } from './add-passkey-dialog';
import { PasskeyDate } from './passkey-date';

const COLUMNS = ['Name', 'Created', 'Last Used', 'Actions'];

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

  let body;
  if (list.isPending) {
    body = (
      <Stack aria-busy="true" aria-label="Loading passkeys">
        {[0, 1].map((i) => (
          <Skeleton key={i} height="8" />
        ))}
      </Stack>
    );
  } else if (list.isError) {
    body = (
      <Alert.Root status="error" role="alert">
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title>{PASSKEY_TEXTS.loadFailed}</Alert.Title>
        </Alert.Content>
        <Button size="sm" variant="outline" loading={list.isFetching} onClick={() => void list.refetch()}>
          Retry
        </Button>
      </Alert.Root>
    );
  } else if (passkeys.length === 0) {
    body = (
      <EmptyState.Root size="sm" borderWidth="1px" borderRadius="md">
        <EmptyState.Content>
          <EmptyState.Title>No passkeys yet</EmptyState.Title>
          <EmptyState.Description>Sign in with your fingerprint, face or screen lock instead of a password.</EmptyState.Description>
          {supported && (
            <Button colorPalette="blue" onClick={() => setAdding(true)}>
              Add Your First Passkey
            </Button>
          )}
        </EmptyState.Content>
      </EmptyState.Root>
    );
  } else {
    body = (
      <Table.ScrollArea borderWidth="1px" borderRadius="md">
        <Table.Root size="sm" aria-label="Passkeys">
          <Table.Header>
            <Table.Row>
              {COLUMNS.map((c) => (
                <Table.ColumnHeader key={c}>{c}</Table.ColumnHeader>
              ))}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {passkeys.map((p) => (
              <Table.Row key={p.id}>
                <Table.Cell>{nameOf(p)}</Table.Cell>
                <Table.Cell>
                  <PasskeyDate value={p.createdAt} now={now} zone={zone} />
                </Table.Cell>
                <Table.Cell>
                  <PasskeyDate value={p.lastUsed} now={now} zone={zone} />
                </Table.Cell>
                <Table.Cell>
                  <Button
                    size="xs"
                    variant="outline"
                    colorPalette="red"
                    aria-label={`Remove passkey ${nameOf(p)}`}
                    disabled={remove.isPending}
                    onClick={() => setRemoving(p)}
                  >
                    Remove
                  </Button>
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </Table.ScrollArea>
    );
  }

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
      {body}
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
