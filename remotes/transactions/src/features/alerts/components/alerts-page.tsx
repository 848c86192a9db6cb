import { Badge, Button, Checkbox, HStack, Link, Skeleton, Table, Text } from '@chakra-ui/react';
import { alertText, errorMessage, formatDateTime, hasPermission, NoPermission, notify, PageFrame, SCREENS, useTimezone, useUser, watchlistLink, type WatchlistAlert } from '@paygate/sdk';
import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { useAcknowledgeAlert, useAlertsPage } from '../api/list-alerts';

/** AlertsPage is the history of the signed-in user's watchlist alerts (route /alerts, issue 29). */
export function AlertsPage() {
  const user = useUser();
  if (!hasPermission(user, 'Get Transactions')) return <NoPermission />;
  return <AlertsView />;
}

function AlertsView() {
  const [onlyNew, setOnlyNew] = useState(false);
  // The page tokens read so far: '' is the first page, each next one the previous page's nextPageToken.
  const [tokens, setTokens] = useState<string[]>(['']);
  const first = useAlertsPage({ unacknowledged: onlyNew, pageToken: '' });
  const unacknowledged = Number(first.data?.unacknowledgedCount ?? 0);
  const filter = (checked: boolean) => {
    setOnlyNew(checked);
    setTokens(['']);
  };

  return (
    <PageFrame title={SCREENS.alerts.title}>
      <HStack justify="space-between" wrap="wrap">
        <Text color="fg.muted" fontSize="sm" aria-live="polite">
          {first.data ? `${unacknowledged} not acknowledged` : ''}
        </Text>
        <Checkbox.Root checked={onlyNew} onCheckedChange={(e) => filter(!!e.checked)}>
          <Checkbox.HiddenInput />
          <Checkbox.Control />
          <Checkbox.Label>Only not acknowledged</Checkbox.Label>
        </Checkbox.Root>
      </HStack>
      <Table.Root size="sm" aria-label="Alerts" aria-busy={first.isPending}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>Raised</Table.ColumnHeader>
            <Table.ColumnHeader>Alert</Table.ColumnHeader>
            <Table.ColumnHeader>Status</Table.ColumnHeader>
            <Table.ColumnHeader textAlign="end">Actions</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {tokens.map((token, i) => (
            <AlertRows key={token} onlyNew={onlyNew} token={token} last={i === tokens.length - 1} onMore={(next) => setTokens((t) => [...t, next])} />
          ))}
        </Table.Body>
      </Table.Root>
    </PageFrame>
  );
}

/** AlertRows are the rows of one page of alerts; the last page read offers the next. */
function AlertRows({ onlyNew, token, last, onMore }: { onlyNew: boolean; token: string; last: boolean; onMore: (next: string) => void }) {
  const [zone] = useTimezone();
  const page = useAlertsPage({ unacknowledged: onlyNew, pageToken: token });
  const ack = useAcknowledgeAlert();
  const rows: WatchlistAlert[] = page.data?.alerts ?? [];
  const acknowledge = (id: string) =>
    ack.mutate(id, { onError: (err) => notify.error('Failed to acknowledge the alert', errorMessage(err, 'Unknown error')) });

  if (page.isPending)
    return (
      <>
        {[0, 1, 2].map((i) => (
          <Table.Row key={i}>
            <Table.Cell colSpan={4}>
              <Skeleton h="5" />
            </Table.Cell>
          </Table.Row>
        ))}
      </>
    );
  if (page.isError)
    return (
      <Table.Row>
        <Table.Cell colSpan={4} color="fg.error" role="alert">
          The alerts could not be loaded: {errorMessage(page.error, 'Unknown error')}
        </Table.Cell>
      </Table.Row>
    );
  return (
    <>
      {token === '' && rows.length === 0 && (
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
          <Table.Cell>{a.acknowledgedUtc ? <Badge colorPalette="gray">Acknowledged</Badge> : <Badge colorPalette="red">New</Badge>}</Table.Cell>
          <Table.Cell textAlign="end">
            <HStack justify="end" gap="2">
              <Link asChild fontSize="sm">
                <RouterLink to={watchlistLink(a)}>Open transactions</RouterLink>
              </Link>
              {!a.acknowledgedUtc && (
                <Button size="xs" variant="outline" onClick={() => acknowledge(a.id ?? '')} loading={ack.isPending} aria-label={`Acknowledge ${a.watchlistName} alert`}>
                  Acknowledge
                </Button>
              )}
            </HStack>
          </Table.Cell>
        </Table.Row>
      ))}
      {last && page.data?.nextPageToken && (
        <Table.Row>
          <Table.Cell colSpan={4} textAlign="center">
            <Button size="sm" variant="outline" onClick={() => onMore(page.data.nextPageToken ?? '')}>
              Show more
            </Button>
          </Table.Cell>
        </Table.Row>
      )}
    </>
  );
}
