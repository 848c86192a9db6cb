import { Alert, Badge, Button, Code, Field, Heading, HStack, Input, Stack, Text } from '@chakra-ui/react';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { MerchantSecretJson } from '@paygate/gen/gateway/v1/merchants_pb';
import { useId, useState, type ReactNode } from 'react';
import type { User } from './access';
import { errorMessage } from './api-error';
import { api } from './console';
import { DataTable, type DataColumn } from './data-table';
import { DialogFrame } from './dialog-frame';
import { mayCall } from './may-call';
import { useTimezone } from './preferences';
import { formatDateTime } from './timezone';
import { notify } from './toast';

// A merchant's API secrets (issue 30, docs/contracts-merchants.md "API
// secrets"): the calls and the one panel that lists, creates, rotates and
// revokes them, on the Merchants page (an admin, any merchant) and on the
// Callbacks page (a merchant admin, its own merchant).

/** The warning shown with a new secret's value. */
export const SECRET_SHOWN_ONCE = 'Copy it now: you will not see it again.';

/** The default overlap of a rotation, in hours (the server's default). */
const DEFAULT_OVERLAP_HOURS = 24;

/** The longest overlap a rotation may ask, in hours (the server's 30 days). */
const MAX_OVERLAP_HOURS = 720;

/** SecretState is a secret's state: accepted without expiry, accepted until expiresAt, no longer accepted. */
type SecretState = 'active' | 'expiring' | 'expired' | 'revoked';

/** MerchantSecret is one API secret of a merchant, without its value. */
export interface MerchantSecret {
  id: string;
  createdAt: string;
  createdBy: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  state: SecretState;
}

/** CreatedMerchantSecret is a new secret with its value, shown this once. */
export interface CreatedMerchantSecret {
  secret: MerchantSecret;
  value: string;
  merchantHash: string;
}

function toSecret(s: MerchantSecretJson | null | undefined): MerchantSecret {
  const state = s?.state;
  return {
    id: String(s?.id ?? ''),
    createdAt: s?.createdAt ?? '',
    createdBy: s?.createdBy ?? '',
    lastUsedAt: s?.lastUsedAt ?? null,
    expiresAt: s?.expiresAt ?? null,
    state: state === 'expiring' || state === 'expired' || state === 'revoked' ? state : 'active',
  };
}

/** The query key of every merchant's secrets; [...MERCHANT_SECRETS_KEY, id] is one merchant's. */
export const MERCHANT_SECRETS_KEY = ['merchant-secrets'] as const;

/** merchantSecretsQuery lists a merchant's secrets, newest first (GET /api/v1/merchants/{merchantId}/secrets). */
export const merchantSecretsQuery = (merchantId: number) =>
  queryOptions({
    queryKey: [...MERCHANT_SECRETS_KEY, merchantId],
    queryFn: async ({ signal }) =>
      ((await api.get<MerchantSecretJson[]>('gateway', `/api/v1/merchants/${merchantId}/secrets`, { signal })) ?? []).map(toSecret),
  });

/**
 * useCreateMerchantSecret creates a secret (POST
 * /api/v1/merchants/{merchantId}/secrets); the merchant's other secrets stay
 * accepted overlapSeconds longer (the server's default, 24 h, when undefined;
 * 0 ends them at once).
 */
export function useCreateMerchantSecret(merchantId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (overlapSeconds?: number): Promise<CreatedMerchantSecret> => {
      const body = await api.post<{ secret?: MerchantSecretJson; value?: string; merchantHash?: string }>(
        'gateway',
        `/api/v1/merchants/${merchantId}/secrets`,
        overlapSeconds === undefined ? {} : { overlapSeconds },
      );
      return { secret: toSecret(body?.secret), value: body?.value ?? '', merchantHash: body?.merchantHash ?? '' };
    },
    onSuccess: () => client.invalidateQueries({ queryKey: merchantSecretsQuery(merchantId).queryKey }),
  });
}

/** useRevokeMerchantSecret stops accepting a secret at once (POST /api/v1/merchants/{merchantId}/secrets/{id}/revoke). */
export function useRevokeMerchantSecret(merchantId: number) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (secretId: string) =>
      toSecret(await api.post<MerchantSecretJson>('gateway', `/api/v1/merchants/${merchantId}/secrets/${encodeURIComponent(secretId)}/revoke`, {})),
    onSuccess: () => client.invalidateQueries({ queryKey: merchantSecretsQuery(merchantId).queryKey }),
  });
}

const STATE_COLOR: Record<SecretState, string> = { active: 'green', expiring: 'orange', expired: 'gray', revoked: 'red' };

/** overlapProblem checks the overlap typed, in hours; '' when it is fine. */
function overlapProblem(hours: string): string {
  const h = hours.trim();
  if (!/^\d+(\.\d+)?$/.test(h) || Number(h) > MAX_OVERLAP_HOURS) return `Enter the overlap in hours, from 0 to ${MAX_OVERLAP_HOURS}.`;
  return '';
}

/** ApiSecretsPanelProps configure an ApiSecretsPanel. */
export interface ApiSecretsPanelProps {
  /** The signed-in user: Create, Rotate and Revoke show only when the server's rule for their call lets them in. */
  user: User | null;
  /** The merchant whose secrets are managed; its hash (X-Paygate-Merchant) is shown when given. */
  merchant: { id: number; name: string; hash?: string };
  /**
   * Set: the panel is one dialog with this title whose content changes with
   * each step (list, create, rotate, revoke, the new value): a second dialog
   * opened over a dialog would take the focus away and count as a click
   * outside. Absent: the list sits in the page and each step opens a dialog.
   */
  dialog?: { title: string; onClose: () => void };
}

type Step = { kind: 'list' } | { kind: 'create' } | { kind: 'rotate' } | { kind: 'revoke'; secret: MerchantSecret } | { kind: 'created'; created: CreatedMerchantSecret };

interface StepFrame {
  title: string;
  role?: 'dialog' | 'alertdialog';
  body: ReactNode;
  footer: ReactNode;
  dismissible: boolean;
}

/**
 * ApiSecretsPanel lists a merchant's API secrets (id, creation, last use,
 * expiry, state), creates the first one, rotates them with an overlap window
 * and revokes one after a confirmation (docs/contracts-merchants.md "API
 * secrets"). A new secret's value is shown once, right after its creation.
 * A refused call is said in the step's dialog, which stays open.
 */
export function ApiSecretsPanel({ user, merchant, dialog }: ApiSecretsPanelProps) {
  const [zone] = useTimezone();
  const mayCreate = mayCall(user, 'POST /api/v1/merchants/{merchantId}/secrets');
  const mayRevoke = mayCall(user, 'POST /api/v1/merchants/{merchantId}/secrets/{id}/revoke');
  const secrets = useQuery(merchantSecretsQuery(merchant.id));
  const create = useCreateMerchantSecret(merchant.id);
  const revoke = useRevokeMerchantSecret(merchant.id);
  const [step, setStep] = useState<Step>({ kind: 'list' });
  const [hours, setHours] = useState(String(DEFAULT_OVERLAP_HOURS));
  const [hoursTouched, setHoursTouched] = useState(false);
  const [failure, setFailure] = useState('');
  const headingId = useId();
  const go = (next: Step) => {
    setFailure('');
    create.reset();
    revoke.reset();
    setStep(next);
  };
  const back = () => {
    setHours(String(DEFAULT_OVERLAP_HOURS));
    setHoursTouched(false);
    go({ kind: 'list' });
  };
  const when = (v: string | null) => (v ? formatDateTime(v, zone) : '—');
  const live = (secrets.data ?? []).filter((s) => s.state === 'active' || s.state === 'expiring');
  const hoursProblem = overlapProblem(hours);
  const pending = create.isPending || revoke.isPending;

  const make = (rotate: boolean) => {
    if (rotate && hoursProblem) {
      setHoursTouched(true);
      return;
    }
    setFailure('');
    create.mutate(rotate ? Math.round(Number(hours.trim()) * 3600) : undefined, {
      onSuccess: (created) => go({ kind: 'created', created }),
      onError: (err) => setFailure(`The secret was not created: ${errorMessage(err, 'Unknown error')}`),
    });
  };

  const cancel = (
    <Button variant="outline" onClick={back} disabled={pending}>
      Cancel
    </Button>
  );
  const failed = failure && (
    <Alert.Root status="error" role="alert">
      <Alert.Indicator />
      <Alert.Title>{failure}</Alert.Title>
    </Alert.Root>
  );

  const frameOf = (s: Exclude<Step, { kind: 'list' }>): StepFrame => {
    if (s.kind === 'created') {
      return {
        title: 'New secret',
        body: <SecretShownOnce created={s.created} />,
        footer: (
          <Button colorPalette="blue" onClick={back}>
            Done
          </Button>
        ),
        dismissible: true,
      };
    }
    if (s.kind === 'revoke') {
      return {
        title: 'Revoke secret',
        role: 'alertdialog',
        body: (
          <Stack gap={3}>
            <Text>{`Revoke secret ${s.secret.id} of ${merchant.name}? Requests signed with it are refused at once.`}</Text>
            {failed}
          </Stack>
        ),
        footer: (
          <>
            {cancel}
            <Button
              colorPalette="red"
              loading={revoke.isPending}
              onClick={() => {
                setFailure('');
                revoke.mutate(s.secret.id, {
                  onSuccess: () => {
                    notify.success('Secret revoked', `${merchant.name}: secret ${s.secret.id}`);
                    back();
                  },
                  onError: (err) => setFailure(`The secret was not revoked: ${errorMessage(err, 'Unknown error')}`),
                });
              }}
            >
              Revoke
            </Button>
          </>
        ),
        dismissible: !pending,
      };
    }
    const rotate = s.kind === 'rotate';
    return {
      title: rotate ? 'Rotate secret' : 'Create secret',
      body: (
        <Stack gap={3}>
          {rotate ? (
            <>
              <Text fontSize="sm">A new secret is created. The current secrets stay accepted for the overlap window, then expire; 0 ends them at once.</Text>
              <Field.Root invalid={hoursTouched && !!hoursProblem}>
                <Field.Label>Overlap window (hours)</Field.Label>
                <Input
                  inputMode="decimal"
                  value={hours}
                  onChange={(e) => {
                    setHours(e.target.value);
                    setHoursTouched(true);
                  }}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter') make(true);
                  }}
                />
                <Field.HelperText>How long the current secrets stay accepted: 0 to {MAX_OVERLAP_HOURS} hours.</Field.HelperText>
                <Field.ErrorText>{hoursProblem}</Field.ErrorText>
              </Field.Root>
            </>
          ) : (
            <Text fontSize="sm">Create an API secret for {merchant.name}? Its value is shown once, right after.</Text>
          )}
          {failed}
        </Stack>
      ),
      footer: (
        <>
          {cancel}
          <Button colorPalette="blue" loading={create.isPending} onClick={() => make(rotate)}>
            {rotate ? 'Rotate' : 'Create'}
          </Button>
        </>
      ),
      dismissible: !pending,
    };
  };

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
  ];
  if (mayRevoke) {
    columns.push({
      key: 'actions',
      header: 'Actions',
      cell: (s) =>
        s.state === 'active' || s.state === 'expiring' ? (
          <Button size="xs" variant="outline" colorPalette="red" aria-haspopup="dialog" aria-label={`Revoke secret ${s.id}`} onClick={() => go({ kind: 'revoke', secret: s })}>
            Revoke
          </Button>
        ) : null,
    });
  }

  const list = (
    <Stack gap={4}>
      {merchant.hash && (
        <Text fontSize="sm">
          Hash (the merchant's public id, sent as <Code>X-Paygate-Merchant</Code>): <Code>{merchant.hash}</Code>
        </Text>
      )}
      {mayCreate && (
        <HStack>
          {live.length === 0 ? (
            <Button size="sm" colorPalette="blue" aria-haspopup="dialog" disabled={secrets.isPending || secrets.isError} onClick={() => go({ kind: 'create' })}>
              Create secret
            </Button>
          ) : (
            <Button size="sm" colorPalette="blue" aria-haspopup="dialog" onClick={() => go({ kind: 'rotate' })}>
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
        empty={mayCreate ? 'No secrets yet: create one to sign payment requests.' : 'No secrets yet.'}
        error={secrets.isError && `The secrets could not be loaded: ${errorMessage(secrets.error, 'Unknown error')}`}
        onRetry={() => void secrets.refetch()}
        retrying={secrets.isFetching}
      />
    </Stack>
  );

  const frame = step.kind === 'list' ? null : frameOf(step);
  const stepDialog = frame && (
    <DialogFrame title={frame.title} role={frame.role} size="xl" onClose={back} dismissible={frame.dismissible} footer={frame.footer}>
      {frame.body}
    </DialogFrame>
  );

  if (dialog) {
    return (
      stepDialog ?? (
        <DialogFrame title={dialog.title} size="xl" onClose={dialog.onClose}>
          {list}
        </DialogFrame>
      )
    );
  }
  return (
    <Stack as="section" gap={3} aria-labelledby={headingId}>
      <Heading size="sm" id={headingId}>
        API secrets
      </Heading>
      <Text fontSize="sm" color="fg.muted">
        {merchant.name} signs its payment requests with one of these secrets (HMAC-SHA256).
      </Text>
      {list}
      {stepDialog}
    </Stack>
  );
}

/** SecretShownOnce shows a new secret's value, the only time it is readable, with a copy button. */
function SecretShownOnce({ created }: { created: CreatedMerchantSecret }) {
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
        <Alert.Title>{SECRET_SHOWN_ONCE}</Alert.Title>
      </Alert.Root>
      <Text fontSize="sm">
        Secret {created.secret.id} for merchant hash <Code>{created.merchantHash}</Code>:
      </Text>
      <Code data-testid="secret-value" p={2} wordBreak="break-all" userSelect="all">
        {created.value}
      </Code>
      <HStack>
        <Button size="sm" variant="outline" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </Button>
        <Text role="status" fontSize="sm" color="fg.muted">
          {copied ? 'The secret is on the clipboard.' : ''}
        </Text>
      </HStack>
    </Stack>
  );
}
