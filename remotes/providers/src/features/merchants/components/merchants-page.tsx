import { Alert, Box, Button, Code, Skeleton, Table, Text } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import { isAdmin, merchantsQuery, NoPermission, notify, PageFrame, SCREENS, useUser, type User } from '@paygate/sdk';
import { useEffect } from 'react';

/** The fetch failure text of spec 01 §8. */
export const MERCHANTS_FETCH_ERROR = 'Failed to fetch merchants. Please try again.';

/** MerchantsPage lists every merchant for admins (spec 01 §2 "Merchants page"). */
export function MerchantsPage() {
  const user = useUser();
  // The route guard already sends non-admins away; the page says so itself too.
  if (!user || !isAdmin(user)) {
    return <NoPermission />;
  }
  return <Merchants user={user} />;
}

function Merchants({ user }: { user: User }) {
  const merchants = useQuery(merchantsQuery(user.username));

  useEffect(() => {
    if (merchants.isError) notify.error(MERCHANTS_FETCH_ERROR);
  }, [merchants.isError, merchants.errorUpdatedAt]);

  return (
    <PageFrame title={SCREENS.merchants.title}>
      {merchants.isError && (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Title>The merchant list could not be loaded.</Alert.Title>
          <Button size="sm" variant="outline" onClick={() => void merchants.refetch()} loading={merchants.isFetching}>
            Retry
          </Button>
        </Alert.Root>
      )}
      <Box overflowX="auto">
        <Table.Root size="sm" variant="outline" aria-label="Merchants" aria-busy={merchants.isPending}>
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeader>ID</Table.ColumnHeader>
              <Table.ColumnHeader>Name</Table.ColumnHeader>
              <Table.ColumnHeader>Hash</Table.ColumnHeader>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {merchants.isPending &&
              [0, 1, 2].map((i) => (
                <Table.Row key={i}>
                  {[0, 1, 2].map((j) => (
                    <Table.Cell key={j}>
                      <Skeleton height="4" />
                    </Table.Cell>
                  ))}
                </Table.Row>
              ))}
            {merchants.isSuccess && merchants.data.length === 0 && (
              <Table.Row>
                <Table.Cell colSpan={3}>
                  <Text color="fg.muted">No merchants yet.</Text>
                </Table.Cell>
              </Table.Row>
            )}
            {merchants.data?.map((m) => (
              <Table.Row key={m.id}>
                <Table.Cell>{m.id}</Table.Cell>
                <Table.Cell>{m.name}</Table.Cell>
                <Table.Cell>
                  <Code>{m.hash}</Code>
                </Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      </Box>
    </PageFrame>
  );
}
