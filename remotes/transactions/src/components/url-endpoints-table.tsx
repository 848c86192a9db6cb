import { Badge, Button, HStack, type Table } from '@chakra-ui/react';
import { DataTable, type DataColumn } from '@paygate/sdk';
import type { ReactNode } from 'react';
import type { DraftErrors } from '../utils/draft';
import type { DraftForm } from './draft-input';

/** RowEdit is the row being edited, with its draft and the messages of a failed save. */
export interface RowEdit<Draft, F extends string> {
  id: string;
  draft: Draft;
  errors: DraftErrors<F>;
}

/**
 * UrlEndpointColumn is one column of a URL-endpoints table: its header, its
 * cell and, for a field the row edit changes, its cell while the row is edited.
 */
export interface UrlEndpointColumn<Row, Draft, F extends string> {
  header: string;
  view: (row: Row) => ReactNode;
  viewProps?: Table.CellProps;
  edit?: (form: DraftForm<Draft, F>) => ReactNode;
  editProps?: Table.CellProps;
}

/** The URL column's read-only cell: monospace, broken anywhere. */
export const URL_CELL: Table.CellProps = { fontFamily: 'mono', fontSize: 'xs', wordBreak: 'break-all' };

/** OnOff is a green or gray badge for a flag. */
export function OnOff({ on, yes = 'Yes', no = 'No' }: { on: boolean; yes?: string; no?: string }) {
  return (
    <Badge colorPalette={on ? 'green' : 'gray'} variant="subtle">
      {on ? yes : no}
    </Badge>
  );
}

/** UrlEndpointsTableProps configure a UrlEndpointsTable. */
export interface UrlEndpointsTableProps<Row extends { id: string }, Draft, F extends string> {
  /** The table's accessible name. */
  label: string;
  /** Rows are test-identified as `<testId>-<id>`. */
  testId: string;
  columns: readonly UrlEndpointColumn<Row, Draft, F>[];
  rows: Row[];
  loading: boolean;
  /** The list's failure ('Failed to fetch callback URLs: …'), in the table with Retry. */
  error: string | null;
  onRetry: () => void;
  /** The row's Edit and Delete are offered. */
  canUpdate: boolean;
  canDelete: boolean;
  editing: RowEdit<Draft, F> | null;
  /** A save or delete is running for this row. */
  busyId: string | null;
  emptyText: string;
  onEdit: (row: Row) => void;
  onDraft: (patch: Partial<Draft>) => void;
  onCancelEdit: () => void;
  onSave: (row: Row) => void;
  onDelete: (row: Row) => void;
}

/** UrlEndpointsTable lists URL endpoints (callback URLs, validation endpoints); one row at a time is edited in place. */
export function UrlEndpointsTable<Row extends { id: string }, Draft, F extends string>(props: UrlEndpointsTableProps<Row, Draft, F>) {
  const { label, testId, rows, loading, error, onRetry, canUpdate, canDelete, editing, emptyText, onDraft } = props;
  const edited = (row: Row) => (editing?.id === row.id ? editing : null);
  const columns: DataColumn<Row>[] = [
    ...props.columns.map(
      (c): DataColumn<Row> => ({
        key: c.header,
        header: c.header,
        cell: (row) => {
          const edit = edited(row);
          return edit && c.edit ? c.edit({ draft: edit.draft, errors: edit.errors, set: onDraft }) : c.view(row);
        },
        cellProps: (row) => (edited(row) && c.edit ? c.editProps : c.viewProps) ?? {},
      }),
    ),
    { key: 'actions', header: canUpdate || canDelete ? 'Actions' : '', cell: (row) => (edited(row) ? <EditActions {...props} row={row} /> : <RowActions {...props} row={row} />) },
  ];
  return (
    <DataTable
      label={label}
      columns={columns}
      rows={rows}
      rowKey={(row) => row.id}
      rowProps={(row) => ({ 'data-testid': `${testId}-${row.id}`, ...(edited(row) ? { bg: 'bg.muted' } : {}) })}
      loading={loading}
      empty={emptyText}
      error={error}
      onRetry={onRetry}
    />
  );
}

type ActionsProps<Row extends { id: string }, Draft, F extends string> = UrlEndpointsTableProps<Row, Draft, F> & { row: Row };

function RowActions<Row extends { id: string }, Draft, F extends string>({ row, canUpdate, canDelete, editing, busyId, onEdit, onDelete }: ActionsProps<Row, Draft, F>) {
  if (!canUpdate && !canDelete) return null;
  return (
    <HStack gap="1">
      {canUpdate && (
        <Button size="xs" variant="outline" disabled={editing !== null || busyId !== null} onClick={() => onEdit(row)}>
          Edit
        </Button>
      )}
      {canDelete && (
        <Button size="xs" variant="outline" colorPalette="red" disabled={editing !== null || busyId !== null} onClick={() => onDelete(row)}>
          Delete
        </Button>
      )}
    </HStack>
  );
}

function EditActions<Row extends { id: string }, Draft, F extends string>({ row, busyId, onCancelEdit, onSave }: ActionsProps<Row, Draft, F>) {
  return (
    <HStack gap="1">
      <Button size="xs" colorPalette="blue" loading={busyId === row.id} onClick={() => onSave(row)}>
        Save
      </Button>
      <Button size="xs" variant="outline" disabled={busyId === row.id} onClick={onCancelEdit}>
        Cancel
      </Button>
    </HStack>
  );
}
