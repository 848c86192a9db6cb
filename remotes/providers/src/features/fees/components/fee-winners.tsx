import { Box, Heading } from '@chakra-ui/react';
import { DataTable, type DataColumn } from '@paygate/sdk';
import { useFeeWinners, type FeeWinner } from '../api/get-fee-winners';
import { amountRangeText, transactionTypeLabel } from '../utils/fee-form';

interface Props {
  collabId: number;
  collabName: string;
  payTypeName: (id: number) => string;
}

function columns(payTypeName: (id: number) => string): DataColumn<FeeWinner>[] {
  return [
    { key: 'type', header: 'Type', cell: (w) => transactionTypeLabel(w.transactionType) },
    { key: 'payType', header: 'Pay Type', cell: (w) => payTypeName(w.payTypeId) },
    { key: 'currency', header: 'Currency', cell: (w) => w.currency },
    { key: 'amounts', header: 'Amounts', cell: (w) => amountRangeText(w.amountMin, w.amountMax) },
    { key: 'winner', header: 'Winning fee', cell: (w) => (w.feeId === '0' ? 'No fee' : `Fee ${w.feeId}`) },
  ];
}

/** FeeWinners shows, for one collab, which fee applies to its payments: the server's answer (spec 02 §5). */
export function FeeWinners({ collabId, collabName, payTypeName }: Props) {
  const winners = useFeeWinners({ collabId });
  return (
    <Box as="section" aria-labelledby="fee-winners-title" borderWidth="1px" borderRadius="md" p={3}>
      <Heading as="h2" size="sm" id="fee-winners-title" mb={2}>
        Fees applied to {collabName}
      </Heading>
      <DataTable
        label="Applied fees"
        columns={columns(payTypeName)}
        rows={winners.data ?? []}
        rowKey={(w) => `${w.transactionType}-${w.payTypeId}-${w.currency}-${w.amountMin}-${w.amountMax}`}
        loading={winners.isPending}
        empty="No fee applies to this collab's payments."
        error={winners.isError && 'The applied fees could not be loaded.'}
        onRetry={() => void winners.refetch()}
        retrying={winners.isFetching}
      />
    </Box>
  );
}
