import { Badge, Box, HStack, IconButton, Skeleton, Table, Text } from '@chakra-ui/react';
import type { Fee } from '../api/types';
import { amountRangeText, feeValueText, payerLabel, transactionTypeLabel } from '../utils/fee-form';

interface Props {
  fees: Fee[];
  loading: boolean;
  pageSize: number;
  collabName: (id: number) => string;
  payTypeName: (id: number) => string;
  /** Whether the caller may change a fee (Edit Fees; global fees: admins). */
  /** The fee's Edit and Delete are offered. */
  canEdit: (f: Fee) => boolean;
  canDelete: (f: Fee) => boolean;
  onEdit: (f: Fee) => void;
  onDelete: (f: Fee) => void;
}

const COLUMNS = ['ID', 'Collab', 'Type', 'Pay Type', 'Currencies', 'Amounts', 'Fee', 'Payer', 'Priority', 'Status', 'Actions'];

/**
 * STICKY_END keeps the Actions column at the right edge of the table's scroll box: when the
 * table is wider than the window (1,024 px with the sidebar), the other columns scroll under it
 * and Edit and Delete stay in view.
 */
const STICKY_END = { position: 'sticky', insetEnd: 0, zIndex: 1, bg: 'bg', borderStartWidth: '1px' } as const;

/** Cells a little narrower than size="sm" gives: eleven columns then fit 1,024 px beside the sidebar. */
const TIGHT_CELLS = { '& :is(th, td)': { px: '1' }, '& :is(th, td):first-of-type': { ps: '2' } } as const;

/** FeesTable lists one page of fees. */
export function FeesTable({ fees, loading, pageSize, collabName, payTypeName, canEdit, canDelete, onEdit, onDelete }: Props) {
  return (
    <Box overflowX="auto">
      <Table.Root size="sm" variant="outline" css={TIGHT_CELLS} aria-label="Fees" aria-busy={loading}>
        <Table.Header>
          <Table.Row>
            {COLUMNS.map((c) => (
              <Table.ColumnHeader key={c} {...(c === 'Actions' ? { ...STICKY_END, bg: 'bg.muted' } : {})}>
                {c}
              </Table.ColumnHeader>
            ))}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {loading &&
            Array.from({ length: Math.min(pageSize, 5) }, (_, i) => (
              <Table.Row key={i}>
                {COLUMNS.map((c) => (
                  <Table.Cell key={c}>
                    <Skeleton height="4" />
                  </Table.Cell>
                ))}
              </Table.Row>
            ))}
          {!loading && fees.length === 0 && (
            <Table.Row>
              <Table.Cell colSpan={COLUMNS.length}>
                <Text color="fg.muted">No fees match these filters.</Text>
              </Table.Cell>
            </Table.Row>
          )}
          {!loading &&
            fees.map((f) => (
              <Table.Row key={f.id} data-testid={`fee-${f.id}`}>
                <Table.Cell>{f.id}</Table.Cell>
                <Table.Cell>{f.collabId ? collabName(f.collabId) : <Badge>Global</Badge>}</Table.Cell>
                <Table.Cell>{transactionTypeLabel(f.transactionType)}</Table.Cell>
                <Table.Cell>{f.payTypeId ? payTypeName(f.payTypeId) : 'All'}</Table.Cell>
                <Table.Cell>{f.currencyFrom === f.currencyTo ? f.currencyFrom : `${f.currencyFrom} → ${f.currencyTo}`}</Table.Cell>
                <Table.Cell>{amountRangeText(f.amountMin, f.amountMax)}</Table.Cell>
                <Table.Cell>{feeValueText(f)}</Table.Cell>
                <Table.Cell>{payerLabel(f.payer)}</Table.Cell>
                <Table.Cell>{f.priority}</Table.Cell>
                <Table.Cell>
                  <Badge colorPalette={f.enabled ? 'green' : 'gray'}>{f.enabled ? 'Enabled' : 'Disabled'}</Badge>
                </Table.Cell>
                <Table.Cell {...STICKY_END}>
                  {(canEdit(f) || canDelete(f)) && (
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
                  )}
                </Table.Cell>
              </Table.Row>
            ))}
        </Table.Body>
      </Table.Root>
    </Box>
  );
}
