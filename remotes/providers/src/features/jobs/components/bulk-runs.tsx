import { Box, Button, Heading, HStack, Skeleton, Stack, Table, Text } from '@chakra-ui/react';
import { ConfirmDialog, errorMessage, mayCall, notify, useUser } from '@paygate/sdk';
import { useId, useState } from 'react';
import type { UseMutationResult, UseQueryResult } from '@tanstack/react-query';
import {
  CALLBACK_RETRY_ACTION,
  useBulkRuns,
  useCallbackRetries,
  useChangeBulkRun,
  useChangeCallbackRetry,
  type BulkRun,
  type RunVerb,
} from '../api/bulk-runs';

const ACTION_LABELS: Record<string, string> = {
  requeuePolling: 'Requeue polling',
  resendCallbacks: 'Resend callbacks',
  markFailed: 'Mark failed',
  cancelCallbacks: 'Cancel callbacks',
  [CALLBACK_RETRY_ACTION]: 'Retry failed callbacks',
};

/** A kind of run the Jobs page lists: the gateway's bulk actions or the callbacks service's retries. */
type RunKind = {
  heading: string;
  /** The run's name in labels and messages. */
  noun: string;
  testId: string;
  empty: string;
};

const KINDS = {
  bulk: {
    heading: 'Bulk actions',
    noun: 'bulk run',
    testId: 'bulk-run',
    empty: "No bulk runs yet. Start one from the transactions list's Bulk actions menu.",
  },
  callbacks: {
    heading: 'Callback retries',
    noun: 'callback retry',
    testId: 'callback-retry',
    empty: "No callback retries yet. Start one from the Callbacks page's Retry failed… or Recover since….",
  },
} satisfies Record<string, RunKind>;

function RunRow({ kind, run, onChange, busy }: { kind: RunKind; run: BulkRun; onChange: (verb: RunVerb) => void; busy: boolean }) {
  const pct = run.total > 0 ? Math.min(100, Math.round((run.processed / run.total) * 100)) : run.state === 'completed' ? 100 : 0;
  const active = run.state === 'queued' || run.state === 'running';
  return (
    <Table.Row data-testid={`${kind.testId}-${run.id}`}>
      <Table.Cell>{run.id}</Table.Cell>
      <Table.Cell>
        {ACTION_LABELS[run.action] ?? run.action}
        <Text fontSize="xs" color="fg.muted">
          {run.reason} — {run.createdBy?.username}
        </Text>
      </Table.Cell>
      <Table.Cell>{run.state}</Table.Cell>
      <Table.Cell minW="40">
        <Box role="progressbar" aria-label={`Progress of ${kind.noun} ${run.id}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} h="1.5" bg="bg.muted" borderRadius="full">
          <Box h="full" w={`${pct}%`} bg="colorPalette.solid" colorPalette="blue" borderRadius="full" />
        </Box>
        <Text fontSize="xs">
          {run.processed.toLocaleString()} / {run.total.toLocaleString()} · {run.applied.toLocaleString()} applied · {run.skipped.toLocaleString()} skipped
        </Text>
      </Table.Cell>
      <Table.Cell textAlign="end">{Math.round(run.throughputPerSecond).toLocaleString()}/s</Table.Cell>
      <Table.Cell>
        {run.failed > 0 ? `${run.failed.toLocaleString()} failed` : ''}
        {run.lastError && (
          <Text fontSize="xs" color="red.fg">
            {run.lastError}
          </Text>
        )}
      </Table.Cell>
      <Table.Cell>
        <HStack gap="1">
          {active && (
            <Button size="2xs" variant="outline" disabled={busy} onClick={() => onChange('pause')}>
              Pause
            </Button>
          )}
          {run.state === 'paused' && (
            <Button size="2xs" variant="outline" disabled={busy} onClick={() => onChange('resume')}>
              Resume
            </Button>
          )}
          {(active || run.state === 'paused') && (
            <Button size="2xs" variant="outline" colorPalette="red" disabled={busy} onClick={() => onChange('cancel')}>
              Cancel
            </Button>
          )}
        </HStack>
      </Table.Cell>
    </Table.Row>
  );
}

type Change = UseMutationResult<unknown, Error, { id: string; verb: RunVerb }>;

function capitalized(text: string): string {
  return text.replace(/\b\w/g, (c) => c.toUpperCase());
}

/** RunsSection lists one kind of run with its progress, throughput and errors, and pauses, resumes and cancels them. */
function RunsSection({ kind, runs, change }: { kind: RunKind; runs: UseQueryResult<BulkRun[]>; change: Change }) {
  const [cancelling, setCancelling] = useState<BulkRun | null>(null);
  const headingId = useId();
  const act = (run: BulkRun, verb: RunVerb) => {
    if (verb === 'cancel') {
      setCancelling(run);
      return;
    }
    change.mutate({ id: run.id, verb }, { onError: (e) => notify.error(`Failed to ${verb} ${kind.noun} ${run.id}`, errorMessage(e, 'Unknown error')) });
  };
  return (
    <Box as="section" aria-labelledby={headingId}>
      <Heading as="h3" id={headingId} size="md" mb={2}>
        {kind.heading}
      </Heading>
      {runs.isPending ? (
        <Skeleton height="16" aria-busy="true" aria-label={`Loading ${kind.heading.toLowerCase()}`} />
      ) : runs.isError ? (
        <Text color="red.fg" role="alert">
          Failed to load {kind.heading.toLowerCase()}: {errorMessage(runs.error, 'Unknown error')}
        </Text>
      ) : runs.data.length === 0 ? (
        <Text color="fg.muted">{kind.empty}</Text>
      ) : (
        <Stack>
          <Table.Root size="sm" aria-label={kind.heading}>
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>Run</Table.ColumnHeader>
                <Table.ColumnHeader>Action</Table.ColumnHeader>
                <Table.ColumnHeader>State</Table.ColumnHeader>
                <Table.ColumnHeader>Progress</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">Throughput</Table.ColumnHeader>
                <Table.ColumnHeader>Errors</Table.ColumnHeader>
                <Table.ColumnHeader>
                  <span className="sr-only">Actions</span>
                </Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {runs.data.map((r) => (
                <RunRow key={r.id} kind={kind} run={r} busy={change.isPending && change.variables?.id === r.id} onChange={(verb) => act(r, verb)} />
              ))}
            </Table.Body>
          </Table.Root>
        </Stack>
      )}
      {cancelling && (
        <ConfirmDialog
          title={`Cancel ${capitalized(kind.noun)}`}
          message={`Cancel ${kind.noun} ${cancelling.id}? What it already changed stays; the rest is not changed.`}
          confirmLabel="Cancel run"
          destructive
          pending={change.isPending}
          onCancel={() => setCancelling(null)}
          onConfirm={() =>
            change.mutate(
              { id: cancelling.id, verb: 'cancel' },
              {
                onSettled: () => setCancelling(null),
                onError: (e) => notify.error(`Failed to cancel ${kind.noun} ${cancelling.id}`, errorMessage(e, 'Unknown error')),
              },
            )
          }
        />
      )}
    </Box>
  );
}

function BulkActionRuns() {
  return <RunsSection kind={KINDS.bulk} runs={useBulkRuns(true)} change={useChangeBulkRun()} />;
}

function CallbackRetryRuns() {
  return <RunsSection kind={KINDS.callbacks} runs={useCallbackRetries(true)} change={useChangeCallbackRetry()} />;
}

/**
 * BulkRuns lists the long runs that act on a whole filter: the gateway's
 * bulk actions (its BulkService) and the callbacks service's retries of
 * failed deliveries (CallbackRetryService), each shown to those who may
 * list it. The aggregator's job stats are the rest of the page.
 */
export function BulkRuns() {
  const user = useUser();
  return (
    <>
      {mayCall(user, 'GET /api/v1/bulk-actions') && <BulkActionRuns />}
      {mayCall(user, 'GET /api/v1/callback-retries') && <CallbackRetryRuns />}
    </>
  );
}
