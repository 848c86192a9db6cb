import { Badge, Button, Checkbox, HStack, Link, Skeleton, Table, Text } from '@chakra-ui/react';
import { alertText, errorMessage, formatDateTime, hasPermission, NoPermission, notify, PageFrame, SCREENS, useTimezone, useUser, watchlistLink, type WatchlistAlert } from '@paygate/sdk';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { useAcknowledgeAlert, useAlerts } from '../api/list-alerts';

/** AlertsPage is the history of the signed-in user's watchlist alerts (route /alerts, issue 29). */
export function AlertsPage() {
  const user = useUser();
  if (!hasPermission(user, 'Get Transactions')) return <NoPermission />;
  return <AlertsView />;
}

function AlertsView() {
  const [onlyNew, setOnlyNew] = useState(false);
  const [zone] = useTimezone();
  const alerts = useAlerts(onlyNew);
  const ack = useAcknowledgeAlert();
  const rows: WatchlistAlert[] = alerts.data?.pages.flatMap((p) => p.alerts ?? []) ?? [];
  const unacknowledged = Number(alerts.data?.pages[0]?.unacknowledgedCount ?? 0);

  const acknowledge = (id: string) =>
    ack.mutate(id, { onError: (err) => notify.error('Failed to acknowledge the alert', errorMessage(err, 'Unknown error')) });

  return (
    <PageFrame title={SCREENS.alerts.title}>
      <HStack justify="space-between" wrap="wrap">
        <Text color="fg.muted" fontSize="sm" aria-live="polite">
          {alerts.data ? `${unacknowledged} not acknowledged` : ''}
        </Text>
        <Checkbox.Root checked={onlyNew} onCheckedChange={(e) => setOnlyNew(!!e.checked)}>
          <Checkbox.HiddenInput />
          <Checkbox.Control />
          <Checkbox.Label>Only not acknowledged</Checkbox.Label>
        </Checkbox.Root>
      </HStack>
      <Table.Root size="sm" aria-label="Alerts" aria-busy={alerts.isPending}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>Raised</Table.ColumnHeader>
            <Table.ColumnHeader>Alert</Table.ColumnHeader>
            <Table.ColumnHeader>Status</Table.ColumnHeader>
            <Table.ColumnHeader textAlign="end">Actions</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {alerts.isPending &&
            [0, 1, 2].map((i) => (
              <Table.Row key={i}>
                <Table.Cell colSpan={4}>
                  <Skeleton h="5" />
                </Table.Cell>
              </Table.Row>
            ))}
          {alerts.isError && (
            <Table.Row>
              <Table.Cell colSpan={4} color="fg.error" role="alert">
                The alerts could not be loaded: {errorMessage(alerts.error, 'Unknown error')}
              </Table.Cell>
            </Table.Row>
          )}
          {alerts.isSuccess && rows.length === 0 && (
            <Table.Row>
              <Table.Cell colSpan={4} color="fg.muted">
                {onlyNew ? 'No alerts waiting.' : 'No alerts yet. Pin a watchlist with a threshold on the Transactions page to be alerted.'}
              </Table.Cell>
            </Table.Row>
          )}
          {rows.map((a) => (
            <Table.Row key={a.id} data-testid={`alert-${a.id}`}>
              <Table.Cell whiteSpace="nowrap">{a.raisedUtc ? formatDateTime(a.raisedUtc, zone) : ''}</Table.Cell>
              <Table.Cell>{alertText(a)}</Table.Cell>
              <Table.Cell>
                {a.acknowledgedUtc ? (
                  <Badge colorPalette="gray">Acknowledged</Badge>
                ) : (
                  <Badge colorPalette="red">New</Badge>
                )}
              </Table.Cell>
              <Table.Cell textAlign="end">
                <HStack justify="end" gap="2">
                  <Link asChild fontSize="sm">
                    <RouterLink to={watchlistLink(a)}>Open transactions</RouterLink>
                  </Link>
                  {!a.acknowledgedUtc && (
                    <Button size="xs" variant="outline" onClick={() => acknowledge(a.id ?? '')} loading={ack.isPending && ack.variables === a.id} aria-label={`Acknowledge ${a.watchlistName} alert`}>
                      Acknowledge
                    </Button>
                  )}
                </HStack>
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
      {alerts.hasNextPage && (
        <Button alignSelf="center" size="sm" variant="outline" onClick={() => void alerts.fetchNextPage()} loading={alerts.isFetchingNextPage}>
          Show more
        </Button>
      )}
    </PageFrame>
  );
}
