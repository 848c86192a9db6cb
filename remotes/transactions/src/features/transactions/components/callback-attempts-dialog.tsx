import { Badge, Button, Code, Text } from '@chakra-ui/react';
import { DataTable, DialogFrame, errorMessage, formatDateTime, mayCall, notify, useTimezone, useUser, type DataColumn } from '@paygate/sdk';
import { useEffect, useState } from 'react';
import { ATTEMPTS_TAKE, useCallbackAttempts, type CallbackAttempt } from '../api/get-callback-attempts';
import { useRetryCallbackAttempt } from '../api/retry-callback-attempt';

/** Rows shown per page of the dialog (spec 02 §9: 100 fetched, 10 shown). */
export const ATTEMPTS_PAGE_SIZE = 10;

const STATUS_PALETTE: Record<string, string> = { Success: 'green', Failed: 'red', Retried: 'orange' };

/** retryState: a Failed attempt can be retried; once queued (here or earlier) it reads "Request sent". */
export function retryState(a: Pick<CallbackAttempt, 'id' | 'callbackAttemptStatus'>, sent: ReadonlySet<string>): 'retry' | 'sent' | 'none' {
  if (a.callbackAttemptStatus === 'Retried' || sent.has(a.id)) return 'sent';
  return a.callbackAttemptStatus === 'Failed' ? 'retry' : 'none';
}

const pretty = (body: string) => {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
};

/** RequestBody is an attempt's detail row: its webhook id and the body it sent. */
function RequestBody({ attempt: a }: { attempt: CallbackAttempt }) {
  return (
    <>
      {a.webhookId && (
        <Text fontSize="xs" mb="1">
          webhook-id: <Code fontSize="xs">{a.webhookId}</Code>
        </Text>
      )}
      <Code display="block" whiteSpace="pre-wrap" fontSize="xs" p="2" aria-label={`Request body of attempt ${a.id}`}>
        {pretty(a.requestBody) || '(empty)'}
      </Code>
    </>
  );
}

/**
 * CallbackAttemptsDialog lists a transaction's callback attempts (spec 02
 * §2): the first 100, 10 rows a page, with Retry on failed attempts. Retry
 * changes state on the callbacks service, so it needs Edit Transactions.
 */
export function CallbackAttemptsDialog({ id, onClose }: { id: string; onClose: () => void }) {
  const user = useUser();
  const [zone] = useTimezone();
  const attempts = useCallbackAttempts(id);
  const retry = useRetryCallbackAttempt();
  const [page, setPage] = useState(0);
  const [sent, setSent] = useState<ReadonlySet<string>>(new Set());
  const canRetry = mayCall(user, 'POST /api/v1/callbacks/attempts/{id}/retry');

  const failure = attempts.isError ? `Failed to fetch callback attempts: ${errorMessage(attempts.error, 'Unknown error')}` : null;
  useEffect(() => {
    if (failure) notify.error(failure);
  }, [failure]);

  const list = attempts.data?.callbackAttempts ?? [];
  const pages = Math.max(1, Math.ceil(list.length / ATTEMPTS_PAGE_SIZE));
  const current = Math.min(page, pages - 1);
  const rows = list.slice(current * ATTEMPTS_PAGE_SIZE, (current + 1) * ATTEMPTS_PAGE_SIZE);
  const total = attempts.data?.totalCount ?? 0;

  function send(a: CallbackAttempt) {
    retry.mutate(
      { id: a.id },
      {
        onSuccess: () => {
          setSent((s) => new Set(s).add(a.id));
          notify.success('Added to the retry queue', `Attempt ${a.attemptNumber || a.id} of transaction ${id}`);
        },
        onError: (err) => notify.error(`Failed to add callback to the retry queue: ${errorMessage(err, 'Unknown error')}`),
      },
    );
  }

  const columns: DataColumn<CallbackAttempt>[] = [
    { key: 'number', header: '#', cell: (a) => a.attemptNumber || '-' },
    { key: 'created', header: 'Created', cellProps: { whiteSpace: 'nowrap' }, cell: (a) => (a.createdUtc ? formatDateTime(a.createdUtc, zone) : '-') },
    { key: 'url', header: 'Callback URL', cellProps: { fontFamily: 'mono', fontSize: 'xs', wordBreak: 'break-all' }, cell: (a) => a.callbackUrl },
    { key: 'response', header: 'Response', cell: (a) => a.responseCode || 'No answer' },
    {
      key: 'status',
      header: 'Status',
      cell: (a) => <Badge colorPalette={STATUS_PALETTE[a.callbackAttemptStatus] ?? 'gray'}>{a.callbackAttemptStatus || 'Unknown'}</Badge>,
    },
    { key: 'error', header: 'Error', cellProps: { fontSize: 'xs' }, cell: (a) => a.errorMessage || '-' },
    {
      key: 'actions',
      header: 'Actions',
      cell: (a) => {
        const state = retryState(a, sent);
        if (state === 'sent')
          return (
            <Text fontSize="xs" color="fg.muted" whiteSpace="nowrap">
              Request sent
            </Text>
          );
        if (state === 'retry' && canRetry)
          return (
            <Button size="xs" variant="outline" loading={retry.isPending && retry.variables?.id === a.id} onClick={() => send(a)}>
              Retry
            </Button>
          );
        return null;
      },
    },
  ];

  return (
    <DialogFrame title={`Callback Attempts - ${id}`} onClose={onClose} size="xl">
      <DataTable
        label="Callback attempts"
        columns={columns}
        rows={rows}
        rowKey={(a) => a.id}
        rowProps={(a) => ({ 'data-testid': `attempt-${a.id}` })}
        loading={attempts.isPending}
        empty="No callbacks to be displayed"
        error={failure}
        onRetry={() => void attempts.refetch()}
        retrying={attempts.isFetching}
        expansion={{
          toggleLabel: (a, expanded) => `${expanded ? 'Hide' : 'Show'} request body of attempt ${a.id}`,
          detail: (a) => <RequestBody attempt={a} />,
        }}
        pagination={
          list.length > 0
            ? {
                label: 'Callback attempts pages',
                page: current + 1,
                totalPages: pages,
                summary: total > ATTEMPTS_TAKE ? `The latest ${list.length} of ${total} attempts` : `${list.length} attempts`,
                onPage: (p) => setPage(p - 1),
              }
            : undefined
        }
      />
    </DialogFrame>
  );
}
