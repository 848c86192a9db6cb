import { Box, Button, Heading, HStack, Skeleton, Stack, Table, Text } from '@chakra-ui/react';
import { ConfirmDialog, errorMessage, mayCall, notify, useUser } from '@paygate/sdk';
import { useId, useState } from 'react';
import { useBulkRuns, useChangeBulkRun, type BulkRun, type RunVerb } from '../api/bulk-runs';

const ACTION_LABELS: Record<string, string> = {
  requeuePolling: 'Requeue polling',
  resendCallbacks: 'Resend callbacks',
  markFailed: 'Mark failed',
  cancelCallbacks: 'Cancel callbacks',
};

function RunRow({ run, onChange, busy }: { run: BulkRun; onChange: (verb: RunVerb) => void; busy: boolean }) {
  const pct = run.total > 0 ? Math.min(100, Math.round((run.processed / run.total) * 100)) : run.state === 'completed' ? 100 : 0;
  const active = run.state === 'queued' || run.state === 'running';
  return (
    <Table.Row data-testid={`bulk-run-${run.id}`}>
      <Table.Cell>{run.id}</Table.Cell>
      <Table.Cell>
        {ACTION_LABELS[run.action] ?? run.action}
        <Text fontSize="xs" color="fg.muted">
          {run.reason} — {run.createdBy?.username}
        </Text>
      </Table.Cell>
      <Table.Cell>{run.state}</Table.Cell>
      <Table.Cell minW="40">
        <Box role="progressbar" aria-label={`Progress of bulk run ${run.id}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct} h="1.5" bg="bg.muted" borderRadius="full">
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

/**
 * BulkRuns lists the filter-wide bulk runs of the gateway (its BulkService,
 * not the aggregator's job stats): progress, throughput, errors, and pause,
 * resume and cancel.
 */
export function BulkRuns() {
  const user = useUser();
  const allowed = mayCall(user, 'GET /api/v1/bulk-actions');
  const runs = useBulkRuns(allowed);
  const change = useChangeBulkRun();
  const [cancelling, setCancelling] = useState<BulkRun | null>(null);
  const headingId = useId();
  if (!allowed) return null;
  const act = (run: BulkRun, verb: RunVerb) => {
    if (verb === 'cancel') {
      setCancelling(run);
      return;
    }
    change.mutate({ id: run.id, verb }, { onError: (e) => notify.error(`Failed to ${verb} bulk run ${run.id}`, errorMessage(e, 'Unknown error')) });
  };
  return (
    <Box as="section" aria-labelledby={headingId}>
      <Heading as="h3" id={headingId} size="md" mb={2}>
        Bulk actions
      </Heading>
      {runs.isPending ? (
        <Skeleton height="16" aria-busy="true" aria-label="Loading bulk runs" />
      ) : runs.isError ? (
        <Text color="red.fg" role="alert">
          Failed to load bulk runs: {errorMessage(runs.error, 'Unknown error')}
        </Text>
      ) : runs.data.length === 0 ? (
        <Text color="fg.muted">
          No bulk runs yet. Start one from the transactions list&apos;s Bulk actions menu.
        </Text>
      ) : (
        <Stack>
          <Table.Root size="sm" aria-label="Bulk runs">
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
                <RunRow key={r.id} run={r} busy={change.isPending && change.variables?.id === r.id} onChange={(verb) => act(r, verb)} />
              ))}
            </Table.Body>
          </Table.Root>
        </Stack>
      )}
      {cancelling && (
        <ConfirmDialog
          title="Cancel Bulk Run"
          message={`Cancel bulk run ${cancelling.id}? What it already changed stays; the rest is not changed.`}
          confirmLabel="Cancel run"
          destructive
          pending={change.isPending}
          onCancel={() => setCancelling(null)}
          onConfirm={() =>
            change.mutate(
              { id: cancelling.id, verb: 'cancel' },
              {
                onSettled: () => setCancelling(null),
                onError: (e) => notify.error(`Failed to cancel bulk run ${cancelling.id}`, errorMessage(e, 'Unknown error')),
              },
            )
          }
        />
      )}
    </Box>
  );
}
