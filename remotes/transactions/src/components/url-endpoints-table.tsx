import { Badge, Button, EmptyState, HStack, Skeleton, Table } from '@chakra-ui/react';
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
  const { label, testId, columns, rows, loading, canUpdate, canDelete, editing, busyId, emptyText } = props;
  const span = columns.length + 1;
  return (
    <Table.ScrollArea borderWidth="1px" borderRadius="md">
      <Table.Root size="sm" aria-label={label} aria-busy={loading}>
        <Table.Header>
          <Table.Row>
            {columns.map((c) => (
              <Table.ColumnHeader key={c.header}>{c.header}</Table.ColumnHeader>
            ))}
            <Table.ColumnHeader>{canUpdate || canDelete ? 'Actions' : ''}</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {loading &&
            [0, 1, 2].map((i) => (
              <Table.Row key={`s${i}`}>
                <Table.Cell colSpan={span}>
                  <Skeleton height="5" />
                </Table.Cell>
              </Table.Row>
            ))}
          {!loading && rows.length === 0 && (
            <Table.Row>
              <Table.Cell colSpan={span}>
                <EmptyState.Root size="sm">
                  <EmptyState.Content>
                    <EmptyState.Description>{emptyText}</EmptyState.Description>
                  </EmptyState.Content>
                </EmptyState.Root>
              </Table.Cell>
            </Table.Row>
          )}
          {!loading &&
            rows.map((row) =>
              editing?.id === row.id ? (
                <EditRow key={row.id} {...props} row={row} edit={editing} />
              ) : (
                <Table.Row key={row.id} data-testid={`${testId}-${row.id}`}>
                  {columns.map((c) => (
                    <Table.Cell key={c.header} {...c.viewProps}>
                      {c.view(row)}
                    </Table.Cell>
                  ))}
                  <Table.Cell>
                    {(canUpdate || canDelete) && (
                      <HStack gap="1">
                        {canUpdate && (
                          <Button size="xs" variant="outline" disabled={editing !== null || busyId !== null} onClick={() => props.onEdit(row)}>
                            Edit
                          </Button>
                        )}
                        {canDelete && (
                          <Button size="xs" variant="outline" colorPalette="red" disabled={editing !== null || busyId !== null} onClick={() => props.onDelete(row)}>
                            Delete
                          </Button>
                        )}
                      </HStack>
                    )}
                  </Table.Cell>
                </Table.Row>
              ),
            )}
        </Table.Body>
      </Table.Root>
    </Table.ScrollArea>
  );
}

function EditRow<Row extends { id: string }, Draft, F extends string>(
  props: UrlEndpointsTableProps<Row, Draft, F> & { row: Row; edit: RowEdit<Draft, F> },
) {
  const { testId, columns, row, edit, busyId, onDraft, onCancelEdit, onSave } = props;
  const form: DraftForm<Draft, F> = { draft: edit.draft, errors: edit.errors, set: onDraft };
  return (
    <Table.Row data-testid={`${testId}-${row.id}`} bg="bg.muted">
      {columns.map((c) =>
        c.edit ? (
          <Table.Cell key={c.header} {...c.editProps}>
            {c.edit(form)}
          </Table.Cell>
        ) : (
          <Table.Cell key={c.header} {...c.viewProps}>
            {c.view(row)}
          </Table.Cell>
        ),
      )}
      <Table.Cell>
        <HStack gap="1">
          <Button size="xs" colorPalette="blue" loading={busyId === row.id} onClick={() => onSave(row)}>
            Save
          </Button>
          <Button size="xs" variant="outline" disabled={busyId === row.id} onClick={onCancelEdit}>
            Cancel
          </Button>
        </HStack>
      </Table.Cell>
    </Table.Row>
  );
}
