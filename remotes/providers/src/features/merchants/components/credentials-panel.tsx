import { Alert, Badge, Button, Code, Field, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { DataTable, DialogFrame, formatDateTime, notify, useTimezone, type DataColumn } from '@paygate/sdk';
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

type View =
  | { kind: 'list' }
  | { kind: 'create' }
  | { kind: 'rotate' }
  | { kind: 'revoke'; secret: MerchantSecret }
  | { kind: 'created'; created: CreatedSecret };

/**
 * CredentialsPanel lists a merchant's API secrets (id, creation, last use,
 * expiry, state) and creates, rotates and revokes them
 * (docs/contracts-merchants.md "API secrets"). It is one dialog whose content
 * changes (list, create, rotate, revoke, the new value): a second dialog
 * opened over or instead of it would take the focus away and count as a
 * click outside.
 */
export function CredentialsPanel({ merchant, canCreate, canRevoke, onClose }: Props) {
  const [zone] = useTimezone();
  const secrets = useMerchantSecrets(merchant.id);
  const create = useCreateSecret(merchant.id);
  const revoke = useRevokeSecret(merchant.id);
  const [view, setView] = useState<View>({ kind: 'list' });
  const [hours, setHours] = useState(String(DEFAULT_OVERLAP_HOURS));
  const back = () => {
    setHours(String(DEFAULT_OVERLAP_HOURS));
    setView({ kind: 'list' });
  };
  const when = (v: string | null) => (v ? formatDateTime(v, zone) : '—');
  const live = (secrets.data ?? []).filter((s) => s.state === 'active' || s.state === 'expiring');
  const hoursValid = /^\d+(\.\d+)?$/.test(hours.trim()) && Number(hours) <= 720;
  const pending = create.isPending || revoke.isPending;

  const make = (rotate: boolean) =>
    create.mutate(rotate ? Math.round(Number(hours) * 3600) : undefined, {
      onSuccess: (created) => setView({ kind: 'created', created }),
      onError: (err) => notify.error(`Failed to create the secret: ${messageOf(err)}`),
    });

  const cancel = (
    <Button variant="outline" onClick={back} disabled={pending}>
      Cancel
    </Button>
  );

  if (view.kind === 'created') {
    return (
      <DialogFrame
        title="New secret"
        size="xl"
        onClose={back}
        footer={
          <Button colorPalette="blue" onClick={back}>
            Done
          </Button>
        }
      >
        <SecretShownOnce created={view.created} />
      </DialogFrame>
    );
  }
  if (view.kind === 'create' || view.kind === 'rotate') {
    const rotate = view.kind === 'rotate';
    return (
      <DialogFrame
        title={rotate ? 'Rotate secret' : 'Create secret'}
        size="xl"
        onClose={back}
        dismissible={!pending}
        footer={
          <>
            {cancel}
            <Button colorPalette="blue" loading={create.isPending} disabled={rotate && !hoursValid} onClick={() => make(rotate)}>
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
  if (view.kind === 'revoke') {
    const secret = view.secret;
    return (
      <DialogFrame
        title="Revoke secret"
        size="xl"
        onClose={back}
        dismissible={!pending}
        footer={
          <>
            {cancel}
            <Button
              colorPalette="red"
              loading={revoke.isPending}
              onClick={() =>
                revoke.mutate(secret.id, {
                  onSuccess: () => {
                    notify.success('Secret revoked', `${merchant.name}: secret ${secret.id}`);
                    back();
                  },
                  onError: (err) => notify.error(`Failed to revoke the secret: ${messageOf(err)}`),
                })
              }
            >
              Revoke
            </Button>
          </>
        }
      >
        <Text>{`Revoke secret ${secret.id} of ${merchant.name}? Requests signed with it are refused at once.`}</Text>
      </DialogFrame>
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
          <Button size="xs" variant="outline" colorPalette="red" onClick={() => setView({ kind: 'revoke', secret: s })}>
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
              <Button size="sm" colorPalette="blue" disabled={secrets.isPending} onClick={() => setView({ kind: 'create' })}>
                Create secret
              </Button>
            ) : (
              <Button size="sm" colorPalette="blue" onClick={() => setView({ kind: 'rotate' })}>
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
