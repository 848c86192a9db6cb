import { Alert, Box, Heading, Skeleton, Table, Text } from '@chakra-ui/react';
import { useFeeWinners } from '../api/get-fee-winners';
import { amountRangeText, transactionTypeLabel } from '../utils/fee-form';

interface Props {
  collabId: number;
  collabName: string;
  payTypeName: (id: number) => string;
}

/** FeeWinners shows, for one collab, which fee applies to its payments: the server's answer (spec 02 §5). */
export function FeeWinners({ collabId, collabName, payTypeName }: Props) {
  const winners = useFeeWinners({ collabId });
  return (
    <Box as="section" aria-labelledby="fee-winners-title" borderWidth="1px" borderRadius="md" p={3}>
      <Heading as="h2" size="sm" id="fee-winners-title" mb={2}>
        Fees applied to {collabName}
      </Heading>
      {winners.isPending && <Skeleton height="16" />}
      {winners.isError && (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Title>The applied fees could not be loaded.</Alert.Title>
        </Alert.Root>
      )}
      {winners.isSuccess && winners.data.length === 0 && <Text color="fg.muted">No fee applies to this collab&apos;s payments.</Text>}
      {winners.isSuccess && winners.data.length > 0 && (
        <Table.Root size="sm" aria-label="Applied fees">
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeader>Type</Table.ColumnHeader>
              <Table.ColumnHeader>Pay Type</Table.ColumnHeader>
              <Table.ColumnHeader>Currency</Table.ColumnHeader>
              <Table.ColumnHeader>Amounts</Table.ColumnHeader>
              <Table.ColumnHeader>Winning fee</Table.ColumnHeader>
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {winners.data.map((w, i) => (
              <Table.Row key={i}>
                <Table.Cell>{transactionTypeLabel(w.transactionType)}</Table.Cell>
                <Table.Cell>{payTypeName(w.payTypeId)}</Table.Cell>
                <Table.Cell>{w.currency}</Table.Cell>
                <Table.Cell>{amountRangeText(w.amountMin, w.amountMax)}</Table.Cell>
                <Table.Cell>{w.feeId === '0' ? 'No fee' : `Fee ${w.feeId}`}</Table.Cell>
              </Table.Row>
            ))}
          </Table.Body>
        </Table.Root>
      )}
    </Box>
  );
}
