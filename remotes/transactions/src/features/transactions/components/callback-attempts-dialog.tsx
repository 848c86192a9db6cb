import { Alert, Badge, Button, Code, HStack, IconButton, Spinner, Stack, Table, Text } from '@chakra-ui/react';
import { DialogFrame, errorMessage, formatDateTime, mayCall, notify, useTimezone, useUser } from '@paygate/sdk';
import { Fragment, useEffect, useState } from 'react';
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
  const [open, setOpen] = useState<string | null>(null);
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

  return (
    <DialogFrame title={`Callback Attempts - ${id}`} onClose={onClose} size="xl">
      {attempts.isPending && (
        <Stack align="center" py="6">
          <Spinner />
          <Text>Loading callback attempts...</Text>
        </Stack>
      )}
      {failure && (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>{failure}</Alert.Title>
          </Alert.Content>
          <Button size="sm" onClick={() => void attempts.refetch()}>
            Retry
          </Button>
        </Alert.Root>
      )}
      {attempts.isSuccess && list.length === 0 && (
        <Text textAlign="center" py="6" color="fg.muted">
          No callbacks to be displayed
        </Text>
      )}
      {list.length > 0 && (
        <Stack gap="3">
          <Table.ScrollArea borderWidth="1px" borderRadius="md">
            <Table.Root size="sm" aria-label="Callback attempts">
              <Table.Header>
                <Table.Row>
                  <Table.ColumnHeader>#</Table.ColumnHeader>
                  <Table.ColumnHeader>Created</Table.ColumnHeader>
                  <Table.ColumnHeader>Callback URL</Table.ColumnHeader>
                  <Table.ColumnHeader>Response</Table.ColumnHeader>
                  <Table.ColumnHeader>Status</Table.ColumnHeader>
                  <Table.ColumnHeader>Error</Table.ColumnHeader>
                  <Table.ColumnHeader>Actions</Table.ColumnHeader>
                </Table.Row>
              </Table.Header>
              <Table.Body>
                {rows.map((a) => {
                  const state = retryState(a, sent);
                  const expanded = open === a.id;
                  return (
                    <Fragment key={a.id}>
                      <Table.Row data-testid={`attempt-${a.id}`}>
                        <Table.Cell>{a.attemptNumber || '-'}</Table.Cell>
                        <Table.Cell whiteSpace="nowrap">{a.createdUtc ? formatDateTime(a.createdUtc, zone) : '-'}</Table.Cell>
                        <Table.Cell fontFamily="mono" fontSize="xs" wordBreak="break-all">
                          {a.callbackUrl}
                        </Table.Cell>
                        <Table.Cell>{a.responseCode || 'No answer'}</Table.Cell>
                        <Table.Cell>
                          <Badge colorPalette={STATUS_PALETTE[a.callbackAttemptStatus] ?? 'gray'}>{a.callbackAttemptStatus || 'Unknown'}</Badge>
                        </Table.Cell>
                        <Table.Cell fontSize="xs">{a.errorMessage || '-'}</Table.Cell>
                        <Table.Cell>
                          <HStack gap="1">
                            <IconButton
                              size="xs"
                              variant="ghost"
                              aria-label={`${expanded ? 'Hide' : 'Show'} request body of attempt ${a.id}`}
                              aria-expanded={expanded}
                              onClick={() => setOpen(expanded ? null : a.id)}
                            >
                              {expanded ? '▾' : '▸'}
                            </IconButton>
                            {state === 'sent' && (
                              <Text fontSize="xs" color="fg.muted" whiteSpace="nowrap">
                                Request sent
                              </Text>
                            )}
                            {state === 'retry' && canRetry && (
                              <Button size="xs" variant="outline" loading={retry.isPending && retry.variables?.id === a.id} onClick={() => send(a)}>
                                Retry
                              </Button>
                            )}
                          </HStack>
                        </Table.Cell>
                      </Table.Row>
                      {expanded && (
                        <Table.Row>
                          <Table.Cell colSpan={7} bg="bg.muted">
                            {a.webhookId && (
                              <Text fontSize="xs" mb="1">
                                webhook-id: <Code fontSize="xs">{a.webhookId}</Code>
                              </Text>
                            )}
                            <Code display="block" whiteSpace="pre-wrap" fontSize="xs" p="2" aria-label={`Request body of attempt ${a.id}`}>
                              {pretty(a.requestBody) || '(empty)'}
                            </Code>
                          </Table.Cell>
                        </Table.Row>
                      )}
                    </Fragment>
                  );
                })}
              </Table.Body>
            </Table.Root>
          </Table.ScrollArea>
          <HStack justify="space-between" wrap="wrap">
            <HStack>
              <Button size="xs" variant="outline" disabled={current === 0} onClick={() => setPage(current - 1)}>
                Previous
              </Button>
              <Text fontSize="sm">
                Page {current + 1} of {pages}
              </Text>
              <Button size="xs" variant="outline" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>
                Next
              </Button>
            </HStack>
            <Text fontSize="xs" color="fg.muted">
              {total > ATTEMPTS_TAKE ? `The latest ${list.length} of ${total} attempts` : `${list.length} attempts`}
            </Text>
          </HStack>
        </Stack>
      )}
    </DialogFrame>
  );
}
