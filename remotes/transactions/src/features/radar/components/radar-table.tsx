import { Badge, Link, Stack, Text } from '@chakra-ui/react';
import { DataTable, formatAmount, formatDateTime, type DataColumn } from '@paygate/sdk';
import { Link as RouterLink } from 'react-router';
import type { RadarRow } from '../api/types';
import { directionLabel, formatSeconds, providerStateLabel, providerStatePalette } from '../utils/radar';

interface Props {
  rows: RadarRow[];
  zone: string;
  loading: boolean;
  /** The failed load's detail (the server's message). */
  failure: string | null;
  onRetry: () => void;
}

function columns(zone: string): DataColumn<RadarRow>[] {
  return [
    {
      key: 'id',
      header: 'Transaction',
      cell: (r) => (
        <Stack gap={0}>
          <Link asChild color="blue.fg">
            <RouterLink to={`/transactions/${r.id}`} aria-label={`Open transaction ${r.id}`}>
              {r.id}
            </RouterLink>
          </Link>
          <Text fontSize="xs" color="fg.muted">
            {r.referenceId}
          </Text>
        </Stack>
      ),
    },
    { key: 'merchant', header: 'Merchant', cell: (r) => r.merchantName },
    {
      key: 'provider',
      header: 'Provider',
      cell: (r) => (
        <Stack gap={0}>
          <Text>{r.providerName}</Text>
          <Text fontSize="xs" color="fg.muted">
            {r.payTypeName} · {directionLabel(r.transactionType)}
          </Text>
        </Stack>
      ),
    },
    { key: 'amount', header: 'Amount', cellProps: { whiteSpace: 'nowrap', textAlign: 'end' }, cell: (r) => formatAmount(r.amount, r.currency) },
    {
      key: 'ours',
      header: 'Our status',
      cell: (r) => (
        <Badge colorPalette="yellow" data-testid="radar-our-status">
          {r.statusName}
        </Badge>
      ),
    },
    {
      key: 'provider-status',
      header: 'Provider status',
      cell: (r) => (
        <Stack gap={0} data-testid="radar-provider-status">
          <Badge colorPalette={providerStatePalette(r.providerState)} alignSelf="flex-start">
            {providerStateLabel(r.providerState)}
          </Badge>
          {r.mismatch && (
            <Text fontSize="xs" fontWeight="semibold" color="red.fg" data-testid="radar-mismatch">
              Differs from ours
            </Text>
          )}
          {r.providerMessage && (
            <Text fontSize="xs" color="fg.muted" maxW="xs" whiteSpace="normal">
              {r.providerMessage}
            </Text>
          )}
          {r.providerCheckedUtc && (
            <Text fontSize="xs" color="fg.muted">
              Asked {formatDateTime(r.providerCheckedUtc, zone)}
            </Text>
          )}
        </Stack>
      ),
    },
    { key: 'created', header: 'Created', cellProps: { whiteSpace: 'nowrap' }, cell: (r) => formatDateTime(r.createdUtc, zone) },
    { key: 'age', header: 'Age', cellProps: { whiteSpace: 'nowrap' }, cell: (r) => formatSeconds(r.ageSeconds) },
    { key: 'sla', header: 'SLA', cellProps: { whiteSpace: 'nowrap' }, cell: (r) => formatSeconds(r.slaSeconds) },
    {
      key: 'late',
      header: 'Late by',
      cellProps: { whiteSpace: 'nowrap' },
      cell: (r) => (
        <Text fontWeight="semibold" color="red.fg">
          {formatSeconds(r.lateSeconds)}
        </Text>
      ),
    },
  ];
}

/** RadarTable lists the overdue transactions, oldest first, a mismatch with the provider highlighted. */
export function RadarTable({ rows, zone, loading, failure, onRetry }: Props) {
  return (
    <DataTable
      label="Overdue transactions"
      columns={columns(zone)}
      rows={rows}
      rowKey={(r) => r.id}
      rowProps={(r) => ({ 'data-testid': 'radar-row', 'data-mismatch': r.mismatch, bg: r.mismatch ? 'red.subtle' : undefined })}
      loading={loading}
      empty="Nothing is overdue."
      emptyDetail="Every non-final transaction is within its SLA."
      error={failure ? 'The radar could not be loaded.' : undefined}
      errorDetail={failure}
      onRetry={onRetry}
    />
  );
}
