import { Box, Button, Field, Heading, HStack, Link, Spinner, Stack, Table, Text, Textarea } from '@chakra-ui/react';
import { ApiError, DialogFrame, errorMessage, notify } from '@paygate/sdk';
import { useEffect, useState } from 'react';
import { BULK_ACTIONS, SKIP_REASONS, useDryRun, useStartBulkRun, type BulkAction, type BulkFilter, type DryRun } from '../api/bulk-actions';

interface Props {
  action: BulkAction;
  filter: BulkFilter;
  /** Names a status code and a collab id for the breakdown tables. */
  statusName: (code: number) => string;
  collabName: (id: number) => string;
  onClose: () => void;
}

function Counts({ title, rows }: { title: string; rows: { label: string; count: number }[] }) {
  if (rows.length === 0) return null;
  return (
    <Box as="section" aria-label={title}>
      <Heading size="sm" mb="1">
        {title}
      </Heading>
      <Table.Root size="sm">
        <Table.Body>
          {rows.map((r) => (
            <Table.Row key={r.label}>
              <Table.Cell>{r.label}</Table.Cell>
              <Table.Cell textAlign="end">{r.count.toLocaleString()}</Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
    </Box>
  );
}

/** Summary shows a dry run: counts, breakdowns, what is skipped and why, a sample. */
export function DryRunSummary({ dry, statusName, collabName }: { dry: DryRun; statusName: Props['statusName']; collabName: Props['collabName'] }) {
  return (
    <Stack gap="4">
      <Text role="status">
        The filter selects <strong>{dry.matched.toLocaleString()}</strong> transactions; the action would change{' '}
        <strong>{dry.wouldApply.toLocaleString()}</strong>.
      </Text>
      {dry.overCap && (
        <Text color="red.fg" role="alert">
          That is more than the cap of {dry.cap.toLocaleString()} transactions per run: narrow the filter.
        </Text>
      )}
      <Counts title="Skipped" rows={dry.skipped.map((s) => ({ label: SKIP_REASONS[s.reason] ?? s.reason, count: s.count }))} />
      <HStack align="start" gap="6" wrap="wrap">
        <Counts title="By status" rows={dry.byStatus.map((s) => ({ label: statusName(s.key), count: s.count }))} />
        <Counts title="By collab" rows={dry.byCollab.map((s) => ({ label: collabName(s.key), count: s.count }))} />
      </HStack>
      {dry.sample.length > 0 && (
        <Box as="section" aria-label="Sample">
          <Heading size="sm" mb="1">
            Sample
          </Heading>
          <Text fontSize="sm">{dry.sample.map((t) => t.id).join(', ')}</Text>
        </Box>
      )}
    </Stack>
  );
}

/**
 * BulkActionDialog runs the dry run of an action over the whole filter,
 * then asks for a reason and starts the run (a 428 opens the confirmation
 * dialog through the SDK), and links to its progress on the Jobs page.
 */
export function BulkActionDialog({ action, filter, statusName, collabName, onClose }: Props) {
  const dryRun = useDryRun();
  const start = useStartBulkRun();
  const [reason, setReason] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  // An approval policy matched: the run starts once another user approves request `approval`.
  const [approval, setApproval] = useState<string | null>(null);
  const label = BULK_ACTIONS.find((a) => a.value === action)?.label ?? action;
  const { mutate } = dryRun;
  useEffect(() => mutate({ action, filter }), [mutate, action, filter]);
  const dry = dryRun.data;
  const run = () => {
    if (!dry) return;
    start.mutate(
      { action, filter, reason, expectedCount: dry.wouldApply },
      {
        onSuccess: (r) => {
          setRunId(r.id);
          notify.success(`Bulk run ${r.id} started`);
        },
        onError: (e) => {
          if (e instanceof ApiError && e.approvalRequested) setApproval(e.approvalRequested);
          // A cancelled confirmation or a change sent for approval is no failure: errorMessage answers '' and no toast shows.
          notify.error('The run was not started', errorMessage(e, 'Unknown error'));
        },
      },
    );
  };
  const footer = runId || approval ? (
    <Button onClick={onClose}>Close</Button>
  ) : (
    <HStack>
      <Button variant="outline" onClick={onClose}>
        Cancel
      </Button>
      <Button
        colorPalette={action === 'markFailed' ? 'red' : undefined}
        disabled={!dry || dry.overCap || dry.wouldApply === 0 || reason.trim() === ''}
        loading={start.isPending}
        onClick={run}
      >
        Run on {dry ? dry.wouldApply.toLocaleString() : '…'} transactions
      </Button>
    </HStack>
  );
  return (
    <DialogFrame title={`Bulk action: ${label}`} onClose={onClose} footer={footer} dismissible={!start.isPending}>
      {dryRun.isPending && (
        <HStack>
          <Spinner size="sm" /> <Text>Counting the transactions the filter selects…</Text>
        </HStack>
      )}
      {dryRun.isError && (
        <Text color="red.fg" role="alert">
          The dry run failed: {dryRun.error instanceof Error ? dryRun.error.message : String(dryRun.error)}
        </Text>
      )}
      {dry && (
        <Stack gap="4">
          <DryRunSummary dry={dry} statusName={statusName} collabName={collabName} />
          {runId ? (
            <Text>
              Run {runId} is queued. Follow its progress on the <Link href="/jobs">Jobs page</Link>.
            </Text>
          ) : approval ? (
            <Text role="status">
              Sent for approval as request #{approval}: the run starts once another user approves it. Follow it on the <Link href="/approvals">Approvals page</Link>.
            </Text>
          ) : (
            <Field.Root required>
              <Field.Label>Reason</Field.Label>
              <Textarea value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} placeholder="Why these transactions are changed" />
            </Field.Root>
          )}
        </Stack>
      )}
    </DialogFrame>
  );
}
