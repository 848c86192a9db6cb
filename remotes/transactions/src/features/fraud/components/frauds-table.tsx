import { Badge, Box, Button, IconButton, Table, Text } from '@chakra-ui/react';
import { formatDateTime } from '@paygate/sdk';
import { Fragment, useState } from 'react';
import type { Fraud } from '../api/types';
import { levelLabel, levelPalette, reviewStatusLabel, reviewStatusPalette } from '../utils/fraud';

interface Props {
  frauds: Fraud[];
  zone: string;
  /** Whether rows show the Edit button (Edit Frauds). */
  canEdit: boolean;
  onEdit: (fraud: Fraud) => void;
}

const COLUMNS = 10;

/** FraudsTable lists frauds; a row expands to the fraud's transactions. */
export function FraudsTable({ frauds, zone, canEdit, onEdit }: Props) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (id: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <Box overflowX="auto">
      <Table.Root size="sm" variant="outline">
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader w="8" />
            <Table.ColumnHeader>Reference</Table.ColumnHeader>
            <Table.ColumnHeader>Client</Table.ColumnHeader>
            <Table.ColumnHeader>Merchant client ID</Table.ColumnHeader>
            <Table.ColumnHeader>Level</Table.ColumnHeader>
            <Table.ColumnHeader>Reason</Table.ColumnHeader>
            <Table.ColumnHeader>Status</Table.ColumnHeader>
            <Table.ColumnHeader>Detected</Table.ColumnHeader>
            <Table.ColumnHeader>Reviewed</Table.ColumnHeader>
            <Table.ColumnHeader />
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {frauds.length === 0 && (
            <Table.Row>
              <Table.Cell colSpan={COLUMNS}>
                <Text color="fg.muted">No frauds match the filters.</Text>
              </Table.Cell>
            </Table.Row>
          )}
          {frauds.map((f) => {
            const expanded = open.has(f.id);
            return (
              <Fragment key={f.id}>
                <Table.Row data-testid={`fraud-${f.id}`}>
                  <Table.Cell>
                    <IconButton size="xs" variant="ghost" aria-label={expanded ? `Hide transactions of ${f.referenceId}` : `Show transactions of ${f.referenceId}`} aria-expanded={expanded} onClick={() => toggle(f.id)}>
                      {expanded ? '▾' : '▸'}
                    </IconButton>
                  </Table.Cell>
                  <Table.Cell>{f.referenceId}</Table.Cell>
                  <Table.Cell>{f.clientId}</Table.Cell>
                  <Table.Cell>{f.merchantClientId}</Table.Cell>
                  <Table.Cell>
                    <Badge colorPalette={levelPalette(f.level)} data-testid="fraud-level">
                      {levelLabel(f.level)}
                    </Badge>
                  </Table.Cell>
                  <Table.Cell maxW="md" whiteSpace="normal">
                    {f.reason}
                  </Table.Cell>
                  <Table.Cell>
                    <Badge colorPalette={reviewStatusPalette(f.reviewStatus)} data-testid="fraud-status">
                      {reviewStatusLabel(f.reviewStatus)}
                    </Badge>
                    {f.isCallbacksSendingCanceled && (
                      <Text fontSize="xs" color="fg.muted">
                        Callbacks cancelled
                      </Text>
                    )}
                  </Table.Cell>
                  <Table.Cell whiteSpace="nowrap">{formatDateTime(f.detectedAtUtc, zone)}</Table.Cell>
                  <Table.Cell>
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
                  </Table.Cell>
                  <Table.Cell>
                    {canEdit && (
                      <Button size="xs" variant="outline" onClick={() => onEdit(f)}>
                        Edit
                      </Button>
                    )}
                  </Table.Cell>
                </Table.Row>
                {expanded && (
                  <Table.Row>
                    <Table.Cell colSpan={COLUMNS} bg="bg.muted">
                      <FraudTransactions fraud={f} zone={zone} />
                    </Table.Cell>
                  </Table.Row>
                )}
              </Fragment>
            );
          })}
        </Table.Body>
      </Table.Root>
    </Box>
  );
}

function FraudTransactions({ fraud, zone }: { fraud: Fraud; zone: string }) {
  return (
    <Box>
      <Table.Root size="sm" aria-label={`Transactions of ${fraud.referenceId}`}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>ID</Table.ColumnHeader>
            <Table.ColumnHeader>Amount</Table.ColumnHeader>
            <Table.ColumnHeader>Type</Table.ColumnHeader>
            <Table.ColumnHeader>Created</Table.ColumnHeader>
            <Table.ColumnHeader>Provider</Table.ColumnHeader>
            <Table.ColumnHeader>Merchant</Table.ColumnHeader>
            <Table.ColumnHeader>Callbacks</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {fraud.transactionsDtos.map((t) => (
            <Table.Row key={t.id} data-testid={`fraud-tx-${t.id}`}>
              <Table.Cell>{t.id}</Table.Cell>
              <Table.Cell>
                {t.amount} {t.currency}
              </Table.Cell>
              <Table.Cell>{t.transactionType === 2 ? 'Cash Out' : t.transactionType === 1 ? 'Cash In' : ''}</Table.Cell>
              <Table.Cell whiteSpace="nowrap">{formatDateTime(t.createdUtc, zone)}</Table.Cell>
              <Table.Cell>{t.providerName}</Table.Cell>
              <Table.Cell>
                {t.merchantName} ({t.merchantId})
              </Table.Cell>
              <Table.Cell>
                {t.callbackDeliveryStatus}
                {t.isCallbacksSendingCanceled && ' · cancelled'}
              </Table.Cell>
            </Table.Row>
          ))}
        </Table.Body>
      </Table.Root>
      {fraud.transactionCount > fraud.transactionsDtos.length && (
        <Text fontSize="xs" color="fg.muted" mt={2}>
          Showing {fraud.transactionsDtos.length} of {fraud.transactionCount} transactions.
        </Text>
      )}
    </Box>
  );
}
