import { Box, Button, Field, Heading, HStack, Input, NativeSelect, Stack, Table, Text, Textarea } from '@chakra-ui/react';
import { DialogFrame, errorMessage, notify } from '@paygate/sdk';
import { useState } from 'react';
import { useRetryDryRun, useStartRetry, type RetryFilter } from '../api/callback-retries';

const SKIPS: Record<string, string> = { callbacksCancelled: 'Callbacks cancelled', urlDisabled: 'Callback URL disabled or deleted' };

interface Props {
  /** retry: the failed deliveries a filter selects; recover: everything that failed since a time. */
  mode: 'retry' | 'recover';
  /** The page's collab, or its merchant when no collab is chosen. */
  collabId: number | null;
  merchantId: number | null;
  /** The callback URLs listed on the page, for "Recover since…" per URL. */
  urls: { id: string; callbackUrl: string }[];
  onClose: () => void;
}

/** toIso reads a datetime-local value (the browser's zone) as RFC 3339, or undefined. */
const toIso = (v: string) => (v ? new Date(v).toISOString() : undefined);

/**
 * CallbackRetryDialog retries failed callback deliveries in bulk: a filter,
 * a dry run (how many, by merchant and response code, skipped and why, a
 * sample), a reason, then the run (docs/contracts-bulk.md).
 */
export function CallbackRetryDialog({ mode, collabId, merchantId, urls, onClose }: Props) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [code, setCode] = useState('');
  const [status, setStatus] = useState('');
  const [urlId, setUrlId] = useState('');
  const [reason, setReason] = useState('');
  const [runId, setRunId] = useState<string | null>(null);
  const dry = useRetryDryRun();
  const start = useStartRetry();
  const codeBad = code !== '' && !/^[1-5]\d\d$/.test(code);
  const filter: RetryFilter = {
    ...(collabId ? { collabId } : merchantId ? { merchantId } : {}),
    ...(urlId ? { callbackUrlId: Number(urlId) } : {}),
    from: toIso(from),
    to: mode === 'retry' ? toIso(to) : undefined,
    responseCode: mode === 'retry' && code && !codeBad ? Number(code) : undefined,
    attemptStatus: mode === 'retry' && status ? (status as RetryFilter['attemptStatus']) : undefined,
  };
  for (const k of Object.keys(filter) as (keyof RetryFilter)[]) if (filter[k] === undefined) delete filter[k];
  const ready = !codeBad && (mode === 'retry' || from !== '');
  const check = () => dry.mutate(filter);
  const run = () =>
    dry.data &&
    start.mutate(
      { filter, reason, expectedCount: dry.data.wouldRetry },
      {
        onSuccess: (r) => {
          setRunId(r.id);
          notify.success(`Callback retry run ${r.id} started`);
        },
        onError: (e) => notify.error('The retry was not started', errorMessage(e, 'Unknown error')),
      },
    );
  const edit = (set: (v: string) => void) => (v: string) => {
    set(v);
    dry.reset();
  };
  const title = mode === 'retry' ? 'Retry failed callbacks' : 'Recover failed callbacks since…';
  return (
    <DialogFrame
      title={title}
      onClose={onClose}
      dismissible={!start.isPending}
      footer={
        runId ? (
          <Button onClick={onClose}>Close</Button>
        ) : (
          <HStack>
            <Button variant="outline" onClick={onClose}>
              Cancel
            </Button>
            {!dry.data ? (
              <Button disabled={!ready} loading={dry.isPending} onClick={check}>
                Dry run
              </Button>
            ) : (
              <Button disabled={dry.data.overCap || dry.data.wouldRetry === 0 || reason.trim() === ''} loading={start.isPending} onClick={run}>
                Retry {dry.data.wouldRetry.toLocaleString()} deliveries
              </Button>
            )}
          </HStack>
        )
      }
    >
      <Stack gap="3">
        <Field.Root required={mode === 'recover'}>
          <Field.Label>{mode === 'recover' ? 'Failed since' : 'Failed from'}</Field.Label>
          <Input type="datetime-local" value={from} onChange={(e) => edit(setFrom)(e.target.value)} />
        </Field.Root>
        {mode === 'retry' && (
          <>
            <Field.Root>
              <Field.Label>Failed until</Field.Label>
              <Input type="datetime-local" value={to} onChange={(e) => edit(setTo)(e.target.value)} />
            </Field.Root>
            <HStack align="start">
              <Field.Root invalid={codeBad}>
                <Field.Label>Response code</Field.Label>
                <Input inputMode="numeric" value={code} placeholder="Any" onChange={(e) => edit(setCode)(e.target.value.trim())} />
                <Field.ErrorText>An HTTP status code, 100 to 599.</Field.ErrorText>
              </Field.Root>
              <Field.Root>
                <Field.Label>Attempt status</Field.Label>
                <NativeSelect.Root>
                  <NativeSelect.Field value={status} onChange={(e) => edit(setStatus)(e.target.value)}>
                    <option value="">Any</option>
                    <option value="answered">Answered with an error</option>
                    <option value="unreachable">No answer</option>
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
              </Field.Root>
            </HStack>
          </>
        )}
        <Field.Root>
          <Field.Label>Callback URL</Field.Label>
          <NativeSelect.Root>
            <NativeSelect.Field value={urlId} onChange={(e) => edit(setUrlId)(e.target.value)}>
              <option value="">All of this {collabId ? 'collab' : 'merchant'}</option>
              {urls.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.callbackUrl}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        {dry.isError && (
          <Text color="red.fg" role="alert">
            The dry run failed: {errorMessage(dry.error, 'Unknown error')}
          </Text>
        )}
        {dry.data && (
          <Stack gap="3">
            <Text role="status">
              The filter selects <strong>{dry.data.matched.toLocaleString()}</strong> failed deliveries; a run would send{' '}
              <strong>{dry.data.wouldRetry.toLocaleString()}</strong> again.
            </Text>
            {dry.data.overCap && (
              <Text color="red.fg" role="alert">
                That is more than the cap of {dry.data.cap.toLocaleString()} per run: narrow the filter.
              </Text>
            )}
            {dry.data.skipped.length > 0 && (
              <Box as="section" aria-label="Skipped">
                <Heading size="sm">Skipped</Heading>
                {dry.data.skipped.map((s) => (
                  <Text key={s.reason} fontSize="sm">
                    {SKIPS[s.reason] ?? s.reason}: {s.count.toLocaleString()}
                  </Text>
                ))}
              </Box>
            )}
            {dry.data.byResponseCode.length > 0 && (
              <Table.Root size="sm" aria-label="By response code">
                <Table.Body>
                  {dry.data.byResponseCode.map((c) => (
                    <Table.Row key={c.key}>
                      <Table.Cell>{c.key === 0 ? 'No answer' : `HTTP ${c.key}`}</Table.Cell>
                      <Table.Cell textAlign="end">{c.count.toLocaleString()}</Table.Cell>
                    </Table.Row>
                  ))}
                </Table.Body>
              </Table.Root>
            )}
            {dry.data.sample.length > 0 && (
              <Text fontSize="sm" aria-label="Sample">
                Sample of transactions: {dry.data.sample.map((x) => x.transactionId).join(', ')}
              </Text>
            )}
            {runId ? (
              <Text>Run {runId} is queued; the deliveries are sent again as it goes.</Text>
            ) : (
              <Field.Root required>
                <Field.Label>Reason</Field.Label>
                <Textarea value={reason} maxLength={500} onChange={(e) => setReason(e.target.value)} placeholder="Why these callbacks are sent again" />
              </Field.Root>
            )}
          </Stack>
        )}
      </Stack>
    </DialogFrame>
  );
}
