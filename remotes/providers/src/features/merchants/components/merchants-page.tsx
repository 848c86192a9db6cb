import { Badge, Button, Code, HStack, Stack, Text } from '@chakra-ui/react';
import { ApiSecretsPanel, ConfirmDialog, DataTable, mayCall, NoPermission, notify, PageFrame, SCREENS, seesAllMerchants, useUser, type DataColumn, type User } from '@paygate/sdk';
import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { messageOf } from '../../../utils/errors';
import { useMerchantDetails, useSaveMerchant, type MerchantDetail } from '../api/merchants';
import { MerchantDialog } from './merchant-dialog';

/** The fetch failure text of spec 01 §8. */
export const MERCHANTS_FETCH_ERROR = 'Failed to fetch merchants. Please try again.';

/** MerchantsPage lists every merchant for admins (spec 01 §2 "Merchants page") and manages them (issue 30). */
export function MerchantsPage() {
  const user = useUser();
  // The route guard already sends non-admins away; the page says so itself too.
  if (!user || !seesAllMerchants(user)) {
    return <NoPermission />;
  }
  return <Merchants user={user} />;
}

type Open =
  | { kind: 'add' }
  | { kind: 'edit'; merchant: MerchantDetail }
  | { kind: 'status'; merchant: MerchantDetail }
  | { kind: 'credentials'; merchant: MerchantDetail }
  | null;

function Merchants({ user }: { user: User }) {
  const merchants = useMerchantDetails();
  const save = useSaveMerchant();
  const [open, setOpen] = useState<Open>(null);
  const navigate = useNavigate();
  const may = {
    add: mayCall(user, 'POST /api/v1/merchants'),
    edit: mayCall(user, 'PUT /api/v1/merchants/{id}'),
    secrets: mayCall(user, 'GET /api/v1/merchants/{merchantId}/secrets'),
    addCollab: mayCall(user, 'POST /api/v1/collabs/initialize'),
  };
  const close = () => setOpen(null);
  // A dialog that closes as it unmounts (the next one replacing it) must not
  // close its successor: each closes only itself.
  const closeIf = (kind: NonNullable<Open>['kind']) => () => setOpen((o) => (o?.kind === kind ? null : o));

  useEffect(() => {
    if (merchants.isError) notify.error(MERCHANTS_FETCH_ERROR);
  }, [merchants.isError, merchants.errorUpdatedAt]);

  const columns: DataColumn<MerchantDetail>[] = [
    { key: 'id', header: 'ID', cell: (m) => m.id },
    { key: 'name', header: 'Name', cell: (m) => m.name },
    { key: 'hash', header: 'Hash', cell: (m) => <Code>{m.hash}</Code> },
    {
      key: 'contact',
      header: 'Contact',
      cell: (m) =>
        m.contactName || m.contactEmail ? (
          <Stack gap={0}>
            {m.contactName && <Text>{m.contactName}</Text>}
            {m.contactEmail && (
              <Text fontSize="xs" color="fg.muted">
                {m.contactEmail}
              </Text>
            )}
          </Stack>
        ) : (
          '—'
        ),
    },
    {
      key: 'status',
      header: 'Status',
      cell: (m) => (
        <Badge colorPalette={m.disabled ? 'red' : 'green'} variant="subtle">
          {m.disabled ? 'Disabled' : 'Active'}
        </Badge>
      ),
    },
  ];
  if (may.edit || may.secrets) {
    columns.push({
      key: 'actions',
      header: 'Actions',
      cell: (m) => (
        <HStack gap={1}>
          {may.edit && (
            <Button size="xs" variant="outline" onClick={() => setOpen({ kind: 'edit', merchant: m })}>
              Edit
            </Button>
          )}
          {may.edit && (
            <Button size="xs" variant="outline" colorPalette={m.disabled ? 'green' : 'red'} onClick={() => setOpen({ kind: 'status', merchant: m })}>
              {m.disabled ? 'Enable' : 'Disable'}
            </Button>
          )}
          {may.secrets && (
            <Button size="xs" variant="outline" onClick={() => setOpen({ kind: 'credentials', merchant: m })}>
              Credentials
            </Button>
          )}
        </HStack>
      ),
    });
  }

  const setStatus = (m: MerchantDetail) =>
    save.mutate(
      { id: m.id, fields: { disabled: !m.disabled } },
      {
        onSuccess: (saved) => {
          notify.success(saved.disabled ? 'Merchant disabled' : 'Merchant enabled', `${saved.name} (${saved.id})`);
          close();
        },
        onError: (err) => notify.error(`Failed to change the merchant's status: ${messageOf(err)}`),
      },
    );

  return (
    <PageFrame
      title={SCREENS.merchants.title}
      actions={
        may.add && (
          <Button size="sm" colorPalette="blue" onClick={() => setOpen({ kind: 'add' })}>
            Add Merchant
          </Button>
        )
      }
    >
      <DataTable
        label="Merchants"
        columns={columns}
        rows={merchants.data ?? []}
        rowKey={(m) => String(m.id)}
        loading={merchants.isPending}
        empty="No merchants yet."
        error={merchants.isError && 'The merchant list could not be loaded.'}
        onRetry={() => void merchants.refetch()}
        retrying={merchants.isFetching}
      />
      {(open?.kind === 'add' || open?.kind === 'edit') && (
        <MerchantDialog
          merchant={open.kind === 'edit' ? open.merchant : undefined}
          canAddCollab={may.addCollab}
          onClose={closeIf(open.kind)}
          onSaved={(m, addCollab) => {
            setOpen(null);
            // The first collab: the Providers page's Initialize Collaboration dialog, for this merchant.
            if (addCollab) void navigate(`/providers?initialize=${m.id}`);
          }}
        />
      )}
      {open?.kind === 'status' && (
        <ConfirmDialog
          title={open.merchant.disabled ? 'Enable Merchant' : 'Disable Merchant'}
          message={
            open.merchant.disabled
              ? `Enable ${open.merchant.name}? Its payments are accepted again.`
              : `Disable ${open.merchant.name}? Its payments are refused until it is enabled again.`
          }
          confirmLabel={open.merchant.disabled ? 'Enable' : 'Disable'}
          destructive={!open.merchant.disabled}
          pending={save.isPending}
          onCancel={closeIf('status')}
          onConfirm={() => setStatus(open.merchant)}
        />
      )}
      {open?.kind === 'credentials' && (
        <ApiSecretsPanel user={user} merchant={open.merchant} dialog={{ title: `Credentials - ${open.merchant.name}`, onClose: closeIf('credentials') }} />
      )}
    </PageFrame>
  );
}
