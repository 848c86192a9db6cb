import { Alert, Badge, Button, Code, Field, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { ConfirmDialog, DataTable, DialogFrame, formatDateTime, notify, useTimezone, type DataColumn } from '@paygate/sdk';
import { useState } from 'react';
import { messageOf } from '../../../utils/errors';
import { useCreateSecret, useMerchantSecrets, useRevokeSecret, type CreatedSecret, type MerchantDetail, type MerchantSecret } from '../api/merchants';

/** The warning shown with a new secret's value. */
export const SHOWN_ONCE = 'Copy it now: you will not see it again.';

/** The default overlap of a rotation, in hours (the server's default). */
export const DEFAULT_OVERLAP_HOURS = 24;

const STATE_COLOR: Record<MerchantSecret['state'], string> = { active: 'green', expiring: 'orange', expired: 'gray', revoked: 'red' };

interface Props {
  merchant: MerchantDetail;
  /** Whether the user may create and revoke secrets (mayCall on their REST calls). */
  canCreate: boolean;
  canRevoke: boolean;
  onClose: () => void;
}

type Open = { kind: 'create' } | { kind: 'rotate' } | { kind: 'revoke'; secret: MerchantSecret } | null;

/**
 * CredentialsPanel lists a merchant's API secrets (id, creation, last use,
 * expiry, state) and creates, rotates and revokes them
 * (docs/contracts-merchants.md "API secrets"). One dialog shows at a time:
 * the panel gives way to the create/rotate or revoke dialog and comes back
 * when it closes.
 */
export function CredentialsPanel({ merchant, canCreate, canRevoke, onClose }: Props) {
  const [zone] = useTimezone();
  const secrets = useMerchantSecrets(merchant.id);
  const revoke = useRevokeSecret(merchant.id);
  const [open, setOpen] = useState<Open>(null);
  // A dialog that closes as it unmounts must not close its successor: each closes only itself.
  const closeIf = (kind: NonNullable<Open>['kind']) => () => setOpen((o) => (o?.kind === kind ? null : o));
  const when = (v: string | null) => (v ? formatDateTime(v, zone) : '—');
  const live = (secrets.data ?? []).filter((s) => s.state === 'active' || s.state === 'expiring');

  if (open?.kind === 'create' || open?.kind === 'rotate') {
    return <NewSecretDialog merchant={merchant} rotate={open.kind === 'rotate'} onClose={closeIf(open.kind)} />;
  }
  if (open?.kind === 'revoke') {
    const secret = open.secret;
    return (
      <ConfirmDialog
        title="Revoke secret"
        message={`Revoke secret ${secret.id} of ${merchant.name}? Requests signed with it are refused at once.`}
        confirmLabel="Revoke"
        destructive
        pending={revoke.isPending}
        onCancel={closeIf('revoke')}
        onConfirm={() =>
          revoke.mutate(secret.id, {
            onSuccess: () => {
              notify.success('Secret revoked', `${merchant.name}: secret ${secret.id}`);
              setOpen(null);
            },
            onError: (err) => notify.error(`Failed to revoke the secret: ${messageOf(err)}`),
          })
        }
      />
    );
  }

  const columns: DataColumn<MerchantSecret>[] = [
    { key: 'id', header: 'ID', cell: (s) => s.id },
    { key: 'createdAt', header: 'Created', cell: (s) => when(s.createdAt) },
    { key: 'lastUsedAt', header: 'Last use', cell: (s) => (s.lastUsedAt ? when(s.lastUsedAt) : 'Never') },
    { key: 'expiresAt', header: 'Expiry', cell: (s) => (s.expiresAt ? when(s.expiresAt) : 'None') },
    {
      key: 'state',
      header: 'State',
      cell: (s) => (
        <Badge colorPalette={STATE_COLOR[s.state]} variant="subtle">
          {s.state}
        </Badge>
      ),
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (s) =>
        canRevoke && (s.state === 'active' || s.state === 'expiring') ? (
          <Button size="xs" variant="outline" colorPalette="red" onClick={() => setOpen({ kind: 'revoke', secret: s })}>
            Revoke
          </Button>
        ) : null,
    },
  ];

  return (
    <DialogFrame title={`Credentials - ${merchant.name}`} size="xl" onClose={onClose}>
      <Stack gap={4}>
        <Text fontSize="sm">
          Hash (the merchant's public id, sent as <Code>X-Paygate-Merchant</Code>): <Code>{merchant.hash}</Code>
        </Text>
        {canCreate && (
          <HStack>
            {live.length === 0 ? (
              <Button size="sm" colorPalette="blue" disabled={secrets.isPending} onClick={() => setOpen({ kind: 'create' })}>
                Create secret
              </Button>
            ) : (
              <Button size="sm" colorPalette="blue" onClick={() => setOpen({ kind: 'rotate' })}>
                Rotate
              </Button>
            )}
          </HStack>
        )}
        <DataTable
          label="Secrets"
          columns={columns}
          rows={secrets.data ?? []}
          rowKey={(s) => s.id}
          loading={secrets.isPending}
          empty="No secrets yet: create one to sign payment requests."
          error={secrets.isError && `The secrets could not be loaded: ${messageOf(secrets.error)}`}
          onRetry={() => void secrets.refetch()}
          retrying={secrets.isFetching}
        />
      </Stack>
    </DialogFrame>
  );
}

/**
 * NewSecretDialog creates a secret (rotate: with an overlap window for the
 * current ones) and then, in the same dialog, shows its value once.
 */
function NewSecretDialog({ merchant, rotate, onClose }: { merchant: MerchantDetail; rotate: boolean; onClose: () => void }) {
  const create = useCreateSecret(merchant.id);
  const [hours, setHours] = useState(String(DEFAULT_OVERLAP_HOURS));
  const [created, setCreated] = useState<CreatedSecret | null>(null);
  const hoursValid = /^\d+(\.\d+)?$/.test(hours.trim()) && Number(hours) <= 720;

  const make = () =>
    create.mutate(rotate ? Math.round(Number(hours) * 3600) : undefined, {
      onSuccess: setCreated,
      onError: (err) => notify.error(`Failed to create the secret: ${messageOf(err)}`),
    });

  if (created) {
    return (
      <DialogFrame
        title="New secret"
        size="md"
        onClose={onClose}
        footer={
          <Button colorPalette="blue" onClick={onClose}>
            Done
          </Button>
        }
      >
        <SecretShownOnce created={created} />
      </DialogFrame>
    );
  }
  return (
    <DialogFrame
      title={rotate ? 'Rotate secret' : 'Create secret'}
      size="sm"
      onClose={onClose}
      dismissible={!create.isPending}
      footer={
        <>
          <Button variant="outline" onClick={onClose} disabled={create.isPending}>
            Cancel
          </Button>
          <Button colorPalette="blue" loading={create.isPending} disabled={rotate && !hoursValid} onClick={make}>
            {rotate ? 'Rotate' : 'Create'}
          </Button>
        </>
      }
    >
      {rotate ? (
        <Stack gap={3}>
          <Text fontSize="sm">A new secret is created. The current secrets stay accepted for the overlap window, then expire; 0 ends them at once.</Text>
          <Field.Root invalid={!hoursValid}>
            <Field.Label>Overlap window (hours)</Field.Label>
            <Input inputMode="decimal" value={hours} onChange={(e) => setHours(e.target.value)} />
            <Field.ErrorText>From 0 to 720 hours.</Field.ErrorText>
          </Field.Root>
        </Stack>
      ) : (
        <Text fontSize="sm">Create an API secret for {merchant.name}? Its value is shown once, right after.</Text>
      )}
    </DialogFrame>
  );
}

/** SecretShownOnce shows a new secret's value, the only time it is readable, with a copy button. */
export function SecretShownOnce({ created }: { created: CreatedSecret }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created.value);
      setCopied(true);
    } catch {
      notify.error('The secret could not be copied: select it and copy it by hand.');
    }
  };
  return (
    <Stack gap={3}>
      <Alert.Root status="warning">
        <Alert.Indicator />
        <Alert.Title>{SHOWN_ONCE}</Alert.Title>
      </Alert.Root>
      <Text fontSize="sm">
        Secret {created.secret.id} for merchant hash <Code>{created.merchantHash}</Code>:
      </Text>
      <Code data-testid="secret-value" p={2} wordBreak="break-all">
        {created.value}
      </Code>
      <HStack>
        <Button size="sm" variant="outline" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
      </HStack>
    </Stack>
  );
}
