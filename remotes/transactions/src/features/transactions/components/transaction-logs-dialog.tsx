import { Alert, Badge, Box, Button, Code, Heading, Spinner, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, errorMessage, formatDateTime, notify, useTimezone } from '@paygate/sdk';
import { useEffect, useMemo } from 'react';
import { useTransactionLogs } from '../api/get-transaction-logs';
import { groupByStage, parseLogs, type LogEntry } from '../utils/logs';

const LEVEL_PALETTE: Record<string, string> = { Information: 'blue', Warning: 'orange', Error: 'red' };

const pretty = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2));

/** TransactionLogsDialog shows a transaction's journal grouped by stage (spec 02 §2). */
export function TransactionLogsDialog({ id, onClose }: { id: string; onClose: () => void }) {
  const logs = useTransactionLogs(id);
  const [zone] = useTimezone();
  const parsed = useMemo((): { ok: true; entries: LogEntry[] } | { ok: false } | null => {
    if (logs.data === undefined) return null;
    try {
      return { ok: true, entries: parseLogs(logs.data) };
    } catch {
      return { ok: false };
    }
  }, [logs.data]);

  const failure = logs.isError ? `Failed to fetch logs: ${errorMessage(logs.error, 'Unknown error')}` : null;
  useEffect(() => {
    if (failure) notify.error(failure);
  }, [failure]);

  return (
    <DialogFrame title={`Transaction Logs - ${id}`} onClose={onClose} size="xl">
      {logs.isPending && (
        <Stack align="center" py="6">
          <Spinner />
          <Text>Loading logs...</Text>
        </Stack>
      )}
      {failure && (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>{failure}</Alert.Title>
          </Alert.Content>
          <Button size="sm" onClick={() => void logs.refetch()}>
            Retry
          </Button>
        </Alert.Root>
      )}
      {parsed && !parsed.ok && (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Title>Failed to parse logs</Alert.Title>
        </Alert.Root>
      )}
      {parsed?.ok && parsed.entries.length === 0 && <Text>No logs for this transaction</Text>}
      {parsed?.ok && (
        <Stack gap="4">
          {groupByStage(parsed.entries).map((g) => (
            <Box key={g.stage} as="section" aria-label={g.stage} borderWidth="1px" borderRadius="md" p="3">
              <Heading size="sm" mb="2">
                {g.stage}
              </Heading>
              <Stack gap="3">
                {g.entries.map((e, i) => (
                  <Box key={e.id || i}>
                    <Text fontSize="sm">
                      <Badge colorPalette={LEVEL_PALETTE[e.level] ?? 'gray'} mr="2">
                        {e.level}
                      </Badge>
                      {e.createdUtc && <Text as="span" color="fg.muted" mr="2">{formatDateTime(e.createdUtc, zone)}</Text>}
                      {e.message}
                    </Text>
                    {Object.entries(e.details).map(([k, v]) => (
                      <Box key={k} mt="1">
                        <Text fontSize="xs" fontWeight="semibold">
                          {k}
                        </Text>
                        <Code display="block" whiteSpace="pre-wrap" fontSize="xs" p="2">
                          {pretty(v)}
                        </Code>
                      </Box>
                    ))}
                    {e.exception && (
                      <Code display="block" whiteSpace="pre-wrap" colorPalette="red" fontSize="xs" p="2" mt="1">
                        {`${e.exception.type}: ${e.exception.message}\n${e.exception.stackTrace}`}
                      </Code>
                    )}
                  </Box>
                ))}
              </Stack>
            </Box>
          ))}
        </Stack>
      )}
    </DialogFrame>
  );
}
