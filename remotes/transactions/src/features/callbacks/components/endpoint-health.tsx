import { Alert, Box, Button, Checkbox, Heading, HStack, Stack, Table, Text } from '@chakra-ui/react';
import { errorMessage, notify } from '@paygate/sdk';
import { useState } from 'react';
import { useEnableCallback, useEndpointHealth, type BreakerState, type EndpointHealth } from '../api/endpoint-health';
import type { CallbackUrl } from '../api/types';

/** BREAKER_LABELS name the breaker states (docs/contracts-callbacks.md, "Endpoint health"). */
export const BREAKER_LABELS: Record<BreakerState, string> = {
  closed: 'Closed',
  open: 'Open (paused)',
  halfOpen: 'Half-open (probing)',
  disabled: 'Disabled automatically',
};

/** successRateText words a success rate over 24 h; '—' without attempts. */
export function successRateText(h: Pick<EndpointHealth, 'successRate' | 'attempts'>): string {
  if (h.successRate === null || h.attempts === 0) return '—';
  return `${(h.successRate * 100).toFixed(h.successRate === 1 || h.successRate === 0 ? 0 : 1)}%`;
}

interface Props {
  /** The merchant whose URLs' health is shown; null shows nothing. */
  merchantId: number | null;
  /** The callback URLs listed: those disabled automatically get a notice. */
  urls: CallbackUrl[];
  /** Whether the user may enable a URL (the Enable call's rule). */
  canEnable: boolean;
  /** Whether the user may read the health (its call's rule). */
  canReadHealth: boolean;
  /** Called after a URL was enabled. */
  onEnabled: () => void;
}

/**
 * EndpointHealthPanel shows, above the callback URLs, a notice per URL that
 * was disabled automatically (with Re-enable and "recover since disabled")
 * and each URL's health over 24 h: success rate, p95 latency, breaker state.
 */
export function EndpointHealthPanel({ merchantId, urls, canEnable, canReadHealth, onEnabled }: Props) {
  const health = useEndpointHealth(canReadHealth ? merchantId : null);
  const listed = new Set(urls.map((u) => u.id));
  const rows = (health.data ?? []).filter((h) => listed.has(h.callbackId));
  const disabled = urls.filter((u) => u.disabledReason !== null && !u.isEnabled);
  return (
    <Stack gap="3">
      {disabled.map((u) => (
        <DisabledNotice key={u.id} url={u} canEnable={canEnable} onEnabled={onEnabled} />
      ))}
      {canReadHealth && rows.length > 0 && (
        <Box>
          <Heading size="sm" mb="2">
            Endpoint health (last 24 h)
          </Heading>
          <Table.Root size="sm" aria-label="Endpoint health">
            <Table.Header>
              <Table.Row>
                <Table.ColumnHeader>Callback URL</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">Attempts</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">Success rate</Table.ColumnHeader>
                <Table.ColumnHeader textAlign="end">p95 latency</Table.ColumnHeader>
                <Table.ColumnHeader>Breaker</Table.ColumnHeader>
              </Table.Row>
            </Table.Header>
            <Table.Body>
              {rows.map((h) => (
                <Table.Row key={h.callbackId} data-testid={`health-${h.callbackId}`}>
                  <Table.Cell wordBreak="break-all">{h.callbackUrl}</Table.Cell>
                  <Table.Cell textAlign="end">{h.attempts.toLocaleString()}</Table.Cell>
                  <Table.Cell textAlign="end">{successRateText(h)}</Table.Cell>
                  <Table.Cell textAlign="end">{h.p95LatencyMs === null ? '—' : `${h.p95LatencyMs.toLocaleString()} ms`}</Table.Cell>
                  <Table.Cell>
                    {BREAKER_LABELS[h.breakerState]}
                    {h.consecutiveFailures > 0 && h.breakerState !== 'closed' && (
                      <Text as="span" color="fg.muted">
                        {' '}
                        · {h.consecutiveFailures} failures in a row
                      </Text>
                    )}
                  </Table.Cell>
                </Table.Row>
              ))}
            </Table.Body>
          </Table.Root>
        </Box>
      )}
    </Stack>
  );
}

function DisabledNotice({ url, canEnable, onEnabled }: { url: CallbackUrl; canEnable: boolean; onEnabled: () => void }) {
  const enable = useEnableCallback();
  const [recover, setRecover] = useState(true);
  return (
    <Alert.Root status="warning" data-testid={`disabled-${url.id}`}>
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Title>{url.callbackUrl} was disabled automatically</Alert.Title>
        <Alert.Description>
          <Stack gap="2">
            <Text>{url.disabledReason}</Text>
            <Text>Its pending callbacks wait and are sent once it is enabled again.</Text>
            {canEnable && (
              <HStack gap="3" wrap="wrap">
                <Checkbox.Root checked={recover} onCheckedChange={(e) => setRecover(!!e.checked)}>
                  <Checkbox.HiddenInput />
                  <Checkbox.Control />
                  <Checkbox.Label>Also retry the callbacks that failed since it was disabled</Checkbox.Label>
                </Checkbox.Root>
                <Button
                  size="sm"
                  colorPalette="blue"
                  loading={enable.isPending}
                  onClick={() =>
                    enable.mutate(
                      { id: url.id, recoverSinceDisabled: recover },
                      {
                        onSuccess: (r) => {
                          notify.success('Callback URL enabled', r.retryRunId ? `Callback retry run ${r.retryRunId} started.` : undefined);
                          onEnabled();
                        },
                        onError: (e) => notify.error('Failed to enable callback URL', errorMessage(e, 'Please try again.')),
                      },
                    )
                  }
                >
                  Re-enable
                </Button>
              </HStack>
            )}
          </Stack>
        </Alert.Description>
      </Alert.Content>
    </Alert.Root>
  );
}
