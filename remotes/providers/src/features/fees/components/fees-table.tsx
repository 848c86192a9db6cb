import { Badge, HStack, IconButton } from '@chakra-ui/react';
import { DataTable, type DataColumn, type PagerProps } from '@paygate/sdk';
import type { Fee } from '../api/types';
import { amountRangeText, feeValueText, payerLabel, transactionTypeLabel } from '../utils/fee-form';

interface Props {
  fees: Fee[];
  loading: boolean;
  /** The failed load's detail (the server's message). */
  failure: string | null;
  onRetry: () => void;
  pagination: PagerProps & { pageSize: number };
  collabName: (id: number) => string;
  payTypeName: (id: number) => string;
  /** The fee's Edit and Delete are offered (Edit Fees; global fees: admins). */
  canEdit: (f: Fee) => boolean;
  canDelete: (f: Fee) => boolean;
  onEdit: (f: Fee) => void;
  onDelete: (f: Fee) => void;
}

/**
 * STICKY_END keeps the Actions column at the right edge of the table's scroll box: when the
 * table is wider than the window (1,024 px with the sidebar), the other columns scroll under it
 * and Edit and Delete stay in view.
 */
const STICKY_END = { position: 'sticky', insetEnd: 0, zIndex: 1, bg: 'bg', borderStartWidth: '1px' } as const;

/** Cells a little narrower than size="sm" gives: eleven columns then fit 1,024 px beside the sidebar. */
const TIGHT_CELLS = { '& :is(th, td)': { px: '1' }, '& :is(th, td):first-of-type': { ps: '2' } } as const;

/** FeesTable lists one page of fees, with the pager under it. */
export function FeesTable({ fees, loading, failure, onRetry, pagination, collabName, payTypeName, canEdit, canDelete, onEdit, onDelete }: Props) {
  const columns: DataColumn<Fee>[] = [
    { key: 'id', header: 'ID', cell: (f) => f.id },
    { key: 'collab', header: 'Collab', cell: (f) => (f.collabId ? collabName(f.collabId) : <Badge>Global</Badge>) },
    { key: 'type', header: 'Type', cell: (f) => transactionTypeLabel(f.transactionType) },
    { key: 'payType', header: 'Pay Type', cell: (f) => (f.payTypeId ? payTypeName(f.payTypeId) : 'All') },
    { key: 'currencies', header: 'Currencies', cell: (f) => (f.currencyFrom === f.currencyTo ? f.currencyFrom : `${f.currencyFrom} → ${f.currencyTo}`) },
    { key: 'amounts', header: 'Amounts', cell: (f) => amountRangeText(f.amountMin, f.amountMax) },
    { key: 'fee', header: 'Fee', cell: feeValueText },
    { key: 'payer', header: 'Payer', cell: (f) => payerLabel(f.payer) },
    { key: 'priority', header: 'Priority', cell: (f) => f.priority },
    { key: 'status', header: 'Status', cell: (f) => <Badge colorPalette={f.enabled ? 'green' : 'gray'}>{f.enabled ? 'Enabled' : 'Disabled'}</Badge> },
    {
      key: 'actions',
      header: 'Actions',
      headerProps: STICKY_END,
      cellProps: STICKY_END,
      cell: (f) =>
        (canEdit(f) || canDelete(f)) && (
          <HStack gap={1}>
            {canEdit(f) && (
              <IconButton size="xs" variant="outline" aria-label={`Edit fee ${f.id}`} onClick={() => onEdit(f)}>
                ✎
              </IconButton>
            )}
            {canDelete(f) && (
              <IconButton size="xs" variant="outline" colorPalette="red" aria-label={`Delete fee ${f.id}`} onClick={() => onDelete(f)}>
                ✕
              </IconButton>
            )}
          </HStack>
        ),
    },
  ];
  return (
    <DataTable
      label="Fees"
      columns={columns}
      rows={fees}
      rowKey={(f) => f.id}
      rowProps={(f) => ({ 'data-testid': `fee-${f.id}` })}
      loading={loading}
      loadingRows={Math.min(pagination.pageSize, 5)}
      empty="No fees match these filters."
      error={failure && 'The fee list could not be loaded.'}
      errorDetail={failure}
      onRetry={onRetry}
      pagination={pagination}
      tableProps={{ css: TIGHT_CELLS }}
    />
  );
}
