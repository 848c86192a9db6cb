import { Button, Checkbox, Field, HStack, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { DataTable, errorMessage, formatDateTime, notify, PageFrame, SCREENS, useTimezone, useUser, type DataColumn } from '@paygate/sdk';
import { useState } from 'react';
import { useSensitiveActions } from '../../../api/get-sensitive-actions';
import { useApproveRequest } from '../api/approve-request';
import { APPROVAL_STATUSES, useApprovals, type ApprovalRequest, type ApprovalsFilter } from '../api/get-approvals';
import { useRejectRequest } from '../api/reject-request';
import { ApprovalDetailDialog } from './approval-detail-dialog';
import { ApprovalStatus, statusLabel } from './approval-status';
import { RejectDialog } from './reject-dialog';

/** The filter a visit starts with: the pending requests of everyone the caller may see. */
export const DEFAULT_FILTER: ApprovalsFilter = { status: 'pending', action: '', mine: false };

/** The open request: its detail, or the question of its rejection. */
interface Open {
  id: string;
  /** The request as it was when opened (it may leave the list, e.g. once decided). */
  snapshot: ApprovalRequest;
  mode: 'detail' | 'reject';
}

/**
 * ApprovalsPage is the Approvals screen (route /approvals, issue 28,
 * docs/contracts-approvals.md "Four-eyes approval"): the approval requests
 * the caller made or may decide, newest first, filtered by status, action and
 * "only mine", more loaded on demand and all reloaded every 5 s. A row opens
 * the request; whether the caller may approve or reject it is the server's
 * word (`canDecide`), never a role's name.
 */
export function ApprovalsPage() {
  const me = useUser();
  const [zone] = useTimezone();
  const [filter, setFilter] = useState<ApprovalsFilter>(DEFAULT_FILTER);
  const [pages, setPages] = useState(1);
  const list = useApprovals(filter, pages);
  const catalogue = useSensitiveActions();
  const approve = useApproveRequest();
  const reject = useRejectRequest();
  const [open, setOpen] = useState<Open | null>(null);
  // The request as the last decision answered it: newer than the list until the list reloads.
  const [decided, setDecided] = useState<ApprovalRequest | null>(null);
  const [decisionError, setDecisionError] = useState<string | null>(null);

  const rows = list.data?.requests ?? [];
  const more = !!list.data && list.data.nextBeforeId !== '0';
  // One more page on its way ("Load more"): the rows shown stay meanwhile.
  const loadingMore = list.isFetching && list.isPlaceholderData && (list.data?.pages ?? 0) < pages;
  const shown = open ? (decided?.id === open.id ? decided : (rows.find((r) => r.id === open.id) ?? open.snapshot)) : null;
  const actionTitle = (name: string) => catalogue.data?.actions.find((a) => a.name === name)?.title ?? name;

  function change(next: Partial<ApprovalsFilter>) {
    setFilter((f) => ({ ...f, ...next }));
    setPages(1);
  }

  function openRequest(r: ApprovalRequest) {
    setOpen({ id: r.id, snapshot: r, mode: 'detail' });
    setDecided(null);
    setDecisionError(null);
  }

  function close() {
    setOpen(null);
    setDecided(null);
    setDecisionError(null);
  }

  function approveOpen() {
    if (!open) return;
    setDecisionError(null);
    approve.mutate(open.id, {
      onSuccess: (got) => {
        if (got) setDecided(got);
        if (got?.status === 'failed') notify.error('The change could not be applied', got.outcome || undefined);
        else notify.success('Request approved', 'The change was applied.');
      },
      // A cancelled confirmation says nothing (errorMessage answers '').
      onError: (err) => setDecisionError(errorMessage(err, 'Failed to approve the request.') || null),
    });
  }

  function rejectOpen(reason: string) {
    if (!open) return;
    setDecisionError(null);
    reject.mutate(
      { id: open.id, reason },
      {
        onSuccess: (got) => {
          if (got) setDecided(got);
          setOpen((o) => (o ? { ...o, mode: 'detail' } : o));
          notify.success('Request rejected');
        },
        onError: (err) => setDecisionError(errorMessage(err, 'Failed to reject the request.') || null),
      },
    );
  }

  const columns: DataColumn<ApprovalRequest>[] = [
    { key: 'id', header: 'Request', cell: (r) => `#${r.id}`, width: '24' },
    {
      key: 'action',
      header: 'Change',
      cell: (r) => (
        <Stack gap={0}>
          <Text fontWeight="medium">{r.title || actionTitle(r.action)}</Text>
          {r.summary[0] && (
            <Text fontSize="xs" color="fg.muted" lineClamp={1}>
              {r.summary[0]}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'requester', header: 'Requested by', cell: (r) => (r.requestedBy === me?.id ? `${r.requestedByUsername} (you)` : r.requestedByUsername) },
    { key: 'requested', header: 'Requested at', cell: (r) => (r.requestedAt ? formatDateTime(r.requestedAt, zone) : '—') },
    { key: 'expires', header: 'Expires at', cell: (r) => (r.expiresAt ? formatDateTime(r.expiresAt, zone) : '—') },
    { key: 'status', header: 'Status', cell: (r) => <ApprovalStatus status={r.status} /> },
    {
      key: 'open',
      header: 'Details',
      cell: (r) => {
        const verb = r.status === 'pending' && r.canDecide ? 'Review' : 'View';
        return (
          <Button size="xs" variant="outline" aria-label={`${verb} request #${r.id}`} onClick={() => openRequest(r)}>
            {verb}
          </Button>
        );
      },
    },
  ];

  const filtered = filter.action !== '' || filter.mine;
  const empty = filtered
    ? 'No approval requests match these filters.'
    : filter.status === 'pending'
      ? 'No approval requests are waiting.'
      : filter.status
        ? `No ${statusLabel(filter.status).toLowerCase()} approval requests.`
        : 'No approval requests yet.';

  return (
    <PageFrame title={SCREENS.approvals.title}>
      <Text color="fg.muted">
        Changes that need a second person&apos;s approval: the ones you asked for and the ones you may approve. The list refreshes every 5 seconds.
      </Text>
      <HStack gap={4} wrap="wrap" align="end" role="group" aria-label="Filters">
        <Field.Root w="48">
          <Field.Label>Status</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field value={filter.status} onChange={(e) => change({ status: e.target.value as ApprovalsFilter['status'] })}>
              {APPROVAL_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {statusLabel(s)}
                </option>
              ))}
              <option value="">All statuses</option>
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Field.Root w="72">
          <Field.Label>Action</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field value={filter.action} onChange={(e) => change({ action: e.target.value })}>
              <option value="">All actions</option>
              {(catalogue.data?.actions ?? []).map((a) => (
                <option key={a.name} value={a.name}>
                  {a.title || a.name}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Checkbox.Root size="sm" checked={filter.mine} onCheckedChange={(e) => change({ mine: e.checked === true })} pb={2}>
          <Checkbox.HiddenInput />
          <Checkbox.Control />
          <Checkbox.Label>Only mine</Checkbox.Label>
        </Checkbox.Root>
      </HStack>

      <DataTable
        label="Approval requests"
        columns={columns}
        rows={rows}
        rowKey={(r) => r.id}
        onRowClick={openRequest}
        loading={list.isPending || (list.isFetching && list.isPlaceholderData)}
        empty={empty}
        error={list.isError ? 'The approval requests could not be loaded.' : undefined}
        errorDetail={list.isError ? errorMessage(list.error, 'Unknown error') : undefined}
        onRetry={() => void list.refetch()}
        retrying={list.isFetching}
      />
      {more && (
        <Button alignSelf="center" size="sm" variant="outline" loading={loadingMore} onClick={() => setPages((p) => p + 1)}>
          Load more
        </Button>
      )}

      {open && shown && open.mode === 'detail' && (
        <ApprovalDetailDialog
          request={shown}
          meId={me?.id ?? ''}
          approving={approve.isPending}
          error={decisionError}
          onApprove={approveOpen}
          onReject={() => {
            setDecisionError(null);
            setOpen({ ...open, mode: 'reject' });
          }}
          onClose={close}
        />
      )}
      {open && shown && open.mode === 'reject' && (
        <RejectDialog
          request={shown}
          pending={reject.isPending}
          error={decisionError}
          onReject={rejectOpen}
          onCancel={() => {
            setDecisionError(null);
            setOpen({ ...open, mode: 'detail' });
          }}
        />
      )}
    </PageFrame>
  );
}
