import { Badge, Box, Button, Text } from '@chakra-ui/react';
import { DataTable, formatDateTime, type DataColumn, type PagerProps } from '@paygate/sdk';
import type { Fraud, FraudTransaction } from '../api/types';
import { levelLabel, levelPalette, reviewStatusLabel, reviewStatusPalette } from '../utils/fraud';

interface Props {
  frauds: Fraud[];
  zone: string;
  loading: boolean;
  /** The failed load's detail (the server's message). */
  failure: string | null;
  onRetry: () => void;
  pagination: PagerProps;
  /** Whether rows show the Edit button (Edit Frauds). */
  canEdit: boolean;
  onEdit: (fraud: Fraud) => void;
}

function columns(zone: string, canEdit: boolean, onEdit: (fraud: Fraud) => void): DataColumn<Fraud>[] {
  return [
    { key: 'reference', header: 'Reference', cell: (f) => f.referenceId },
    { key: 'client', header: 'Client', cell: (f) => f.clientId },
    { key: 'merchantClient', header: 'Merchant client ID', cell: (f) => f.merchantClientId },
    {
      key: 'level',
      header: 'Level',
      cell: (f) => (
        <Badge colorPalette={levelPalette(f.level)} data-testid="fraud-level">
          {levelLabel(f.level)}
        </Badge>
      ),
    },
    { key: 'reason', header: 'Reason', cellProps: { maxW: 'md', whiteSpace: 'normal' }, cell: (f) => f.reason },
    {
      key: 'status',
      header: 'Status',
      cell: (f) => (
        <>
          <Badge colorPalette={reviewStatusPalette(f.reviewStatus)} data-testid="fraud-status">
            {reviewStatusLabel(f.reviewStatus)}
          </Badge>
          {f.isCallbacksSendingCanceled && (
            <Text fontSize="xs" color="fg.muted">
              Callbacks cancelled
            </Text>
          )}
        </>
      ),
    },
    { key: 'detected', header: 'Detected', cellProps: { whiteSpace: 'nowrap' }, cell: (f) => formatDateTime(f.detectedAtUtc, zone) },
    {
      key: 'reviewed',
      header: 'Reviewed',
      cell: (f) => (
        <>
          {f.reviewedBy && (
            <>
              <Text>{f.reviewedBy}</Text>
              <Text fontSize="xs" color="fg.muted" whiteSpace="nowrap">
                {formatDateTime(f.reviewCompletedAtUtc, zone)}
              </Text>
            </>
          )}
          {f.notes && (
            <Text fontSize="xs" data-testid="fraud-notes">
              {f.notes}
            </Text>
          )}
        </>
      ),
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (f) =>
        canEdit && (
          <Button size="xs" variant="outline" onClick={() => onEdit(f)}>
            Edit
          </Button>
        ),
    },
  ];
}

/** FraudsTable lists one page of frauds; a row expands to the fraud's transactions. */
export function FraudsTable({ frauds, zone, loading, failure, onRetry, pagination, canEdit, onEdit }: Props) {
  return (
    <DataTable
      label="Frauds"
      columns={columns(zone, canEdit, onEdit)}
      rows={frauds}
      rowKey={(f) => f.id}
      rowProps={(f) => ({ 'data-testid': `fraud-${f.id}` })}
      loading={loading}
      empty="No frauds match the filters."
      error={failure && 'The fraud list could not be loaded.'}
      errorDetail={failure}
      onRetry={onRetry}
      pagination={pagination}
      expansion={{
        toggleLabel: (f, expanded) => `${expanded ? 'Hide' : 'Show'} transactions of ${f.referenceId}`,
        detail: (f) => <FraudTransactions fraud={f} zone={zone} />,
      }}
    />
  );
}

function transactionColumns(zone: string): DataColumn<FraudTransaction>[] {
  return [
    { key: 'id', header: 'ID', cell: (t) => t.id },
    { key: 'amount', header: 'Amount', cell: (t) => `${t.amount} ${t.currency}` },
    { key: 'type', header: 'Type', cell: (t) => (t.transactionType === 2 ? 'Cash Out' : t.transactionType === 1 ? 'Cash In' : '') },
    { key: 'created', header: 'Created', cellProps: { whiteSpace: 'nowrap' }, cell: (t) => formatDateTime(t.createdUtc, zone) },
    { key: 'provider', header: 'Provider', cell: (t) => t.providerName },
    { key: 'merchant', header: 'Merchant', cell: (t) => `${t.merchantName} (${t.merchantId})` },
    { key: 'callbacks', header: 'Callbacks', cell: (t) => `${t.callbackDeliveryStatus}${t.isCallbacksSendingCanceled ? ' · cancelled' : ''}` },
  ];
}

function FraudTransactions({ fraud, zone }: { fraud: Fraud; zone: string }) {
  return (
    <Box>
      <DataTable
        label={`Transactions of ${fraud.referenceId}`}
        columns={transactionColumns(zone)}
        rows={fraud.transactionsDtos}
        rowKey={(t) => t.id}
        rowProps={(t) => ({ 'data-testid': `fraud-tx-${t.id}` })}
        empty="No transactions are linked to this fraud."
      />
      {fraud.transactionCount > fraud.transactionsDtos.length && (
        <Text fontSize="xs" color="fg.muted" mt={2}>
          Showing {fraud.transactionsDtos.length} of {fraud.transactionCount} transactions.
        </Text>
      )}
    </Box>
  );
}
