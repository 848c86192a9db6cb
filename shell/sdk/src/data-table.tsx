import { Alert, Box, Button, EmptyState, IconButton, Skeleton, Stack, Table, VisuallyHidden, type BoxProps } from '@chakra-ui/react';
import { Fragment, useId, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import { Pager, type PagerProps } from './pager';

/** DataAttributes are the `data-*` attributes a row or cell may carry (test ids, CSS hooks). */
export type DataAttributes = { [name: `data-${string}`]: string | number | boolean | undefined };

/** WithData is a part's props, with or without data attributes. */
type WithData<P> = P | (P & DataAttributes);

/** SortDirection is the order of a sorted column, in aria-sort's words. */
export type SortDirection = 'ascending' | 'descending';

/** SortState is the column a table is sorted by and its direction. */
export interface SortState<K extends string = string> {
  key: K;
  direction: SortDirection;
}

/** DataColumn is one column of a DataTable. */
export interface DataColumn<Row, K extends string = string> {
  /** Tells the column from its siblings (React's key); unique in the table. */
  key: string;
  /** The header's content: mostly its text; a column with no visible title puts VisuallyHidden text here. */
  header: ReactNode;
  /** The column's cell of a row. */
  cell: (row: Row) => ReactNode;
  /** The column sorts the table by this key: its header becomes a button and carries aria-sort. */
  sortKey?: K;
  /** Where the header and the cells align (numbers: 'end'). */
  align?: 'start' | 'center' | 'end';
  /** The column's width (a size token or CSS length). */
  width?: BoxProps['width'];
  /** More props of the header cell (a sticky column, data attributes). */
  headerProps?: WithData<Table.ColumnHeaderProps>;
  /** More props of the column's cells, the same for every row or per row. */
  cellProps?: WithData<Table.CellProps> | ((row: Row) => WithData<Table.CellProps>);
}

/** DataTableExpansion makes rows expandable: a button at the start of a row shows or hides its detail row. */
export interface DataTableExpansion<Row> {
  /** The content of a row's detail row. */
  detail: (row: Row) => ReactNode;
  /** The toggle's accessible name, e.g. `${expanded ? 'Collapse' : 'Expand'} transaction ${id}`. */
  toggleLabel: (row: Row, expanded: boolean) => string;
  /** A row without details (yet) has a disabled toggle and no detail row. */
  canExpand?: (row: Row) => boolean;
}

/** DataTableProps configure a DataTable. */
export interface DataTableProps<Row, K extends string = string> {
  /** The table's accessible name (its aria-label). */
  label: string;
  /** A visible caption above the table. */
  caption?: ReactNode;
  columns: readonly DataColumn<Row, K>[];
  rows: readonly Row[];
  /** A row's identity, unique in the table (React's key, the expanded rows). */
  rowKey: (row: Row) => string;
  /** More props of a row (a test id, a background, an accessible name). */
  rowProps?: (row: Row) => WithData<Table.RowProps>;
  /**
   * The rows are on their way: the table is busy, and while it has no rows
   * skeleton rows stand in for them (rows already shown stay while new ones load).
   */
  loading?: boolean;
  /** How many skeleton rows stand in while loading (default 3). */
  loadingRows?: number;
  /** The sentence of a table without rows ('No fees match these filters.'). */
  empty: ReactNode;
  /** A second line under `empty`: what to do about it. */
  emptyDetail?: ReactNode;
  /** An action under the empty sentence (a button that adds the first row). */
  emptyAction?: ReactNode;
  /** The sentence of a failed load ('The fee list could not be loaded.'); the rows, if any, stay below it. */
  error?: ReactNode;
  /** The error's detail (the server's message). */
  errorDetail?: ReactNode;
  /** Offers Retry in the error row. */
  onRetry?: () => void;
  /** The retry is running. */
  retrying?: boolean;
  /** The current sort (controlled: the caller sorts or asks the server). */
  sort?: SortState<K> | null;
  /** A sortable header was pressed: ascending first, then the other way. */
  onSort?: (sort: SortState<K>) => void;
  /** Pages the table: a Pager under it. */
  pagination?: PagerProps;
  /** Expandable rows. */
  expansion?: DataTableExpansion<Row>;
  /** Makes rows focusable and clickable: a click, Enter or Space on the row (not on a control in it) calls it. */
  onRowClick?: (row: Row) => void;
  /** Bounds the table's height: it scrolls inside, the header staying in view. */
  maxH?: BoxProps['maxH'];
  /** More props of the table (density, white space). */
  tableProps?: Table.RootProps;
  /** More props of the table's scroll box (a container query's name). */
  frameProps?: BoxProps;
}

/** A click on a control inside a clickable row is the control's, not the row's. */
const CONTROLS = 'a, button, input, select, textarea, label, summary, [role="button"], [role="menuitem"], [role="checkbox"], [role="switch"]';

function fromControl(e: MouseEvent<HTMLElement> | KeyboardEvent<HTMLElement>): boolean {
  const control = (e.target as HTMLElement).closest(CONTROLS);
  return !!control && control !== e.currentTarget && e.currentTarget.contains(control);
}

/** The scroll box draws the table's edge: the last row needs no line of its own. */
const LAST_ROW = { '& tbody > tr:last-of-type > td': { borderBottomWidth: 0 } } as const;

const SORT_MARK: Record<SortDirection | 'none', string> = { ascending: '▲', descending: '▼', none: '↕' };

/**
 * DataTable is the console's one table: typed columns, rows with a key,
 * loading, empty and error rows, controlled sorting, a pager, expandable
 * rows, focusable clickable rows and a header that stays in view while the
 * table scrolls inside its box. It fetches nothing: the screen passes rows
 * and states from its queries.
 */
export function DataTable<Row, K extends string = string>(props: DataTableProps<Row, K>) {
  const { label, caption, columns, rows, rowKey, rowProps, loading = false, loadingRows = 3, empty, emptyDetail, emptyAction } = props;
  const { error, errorDetail, onRetry, retrying, sort, onSort, pagination, expansion, onRowClick, maxH, tableProps, frameProps } = props;
  const id = useId();
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const span = columns.length + (expansion ? 1 : 0);
  const failed = error !== undefined && error !== null && error !== false;

  const toggle = (key: string) =>
    setOpen((prev) => {
      const next = new Set(prev);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const sortBy = (key: K) => onSort?.({ key, direction: sort?.key === key && sort.direction === 'ascending' ? 'descending' : 'ascending' });

  const clickable = (row: Row) =>
    onRowClick
      ? {
          tabIndex: 0,
          cursor: 'pointer',
          _hover: { bg: 'bg.muted' },
          _focusVisible: { outline: '2px solid', outlineColor: 'blue.focusRing', outlineOffset: '-2px' },
          onClick: (e: MouseEvent<HTMLTableRowElement>) => {
            if (!fromControl(e)) onRowClick(row);
          },
          onKeyDown: (e: KeyboardEvent<HTMLTableRowElement>) => {
            if (e.target !== e.currentTarget || (e.key !== 'Enter' && e.key !== ' ')) return;
            e.preventDefault();
            onRowClick(row);
          },
        }
      : {};

  const table = (
    // The frame scrolls when the table is wider or taller than it: it takes
    // the focus, so that a keyboard user can scroll it too (WCAG 2.1.1).
    <Box
      overflow="auto"
      maxW="full"
      maxH={maxH}
      borderWidth="1px"
      borderRadius="md"
      tabIndex={0}
      _focusVisible={{ outline: '2px solid', outlineColor: 'blue.focusRing', outlineOffset: '2px' }}
      {...frameProps}
    >
      <Table.Root
        size="sm"
        stickyHeader
        aria-label={label}
        aria-busy={loading}
        {...tableProps}
        css={[LAST_ROW, tableProps?.css]}
      >
        {caption && (
          <Table.Caption captionSide="top" textAlign="start" mb="2">
            {caption}
          </Table.Caption>
        )}
        <Table.Header>
          <Table.Row>
            {expansion && (
              <Table.ColumnHeader w="8">
                <VisuallyHidden>Details</VisuallyHidden>
              </Table.ColumnHeader>
            )}
            {columns.map((c) => {
              const direction = c.sortKey === undefined ? undefined : sort?.key === c.sortKey ? sort.direction : 'none';
              return (
                <Table.ColumnHeader key={c.key} textAlign={c.align} w={c.width} aria-sort={direction} {...c.headerProps}>
                  {c.sortKey === undefined || !direction ? (
                    c.header
                  ) : (
                    <Button size="xs" variant="ghost" mx="-2" fontWeight="inherit" onClick={() => sortBy(c.sortKey!)}>
                      {c.header}
                      <span aria-hidden>{SORT_MARK[direction]}</span>
                    </Button>
                  )}
                </Table.ColumnHeader>
              );
            })}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {failed && (
            <Table.Row>
              <Table.Cell colSpan={span}>
                <Alert.Root status="error" role="alert">
                  <Alert.Indicator />
                  <Alert.Content>
                    <Alert.Title>{error}</Alert.Title>
                    {errorDetail && <Alert.Description>{errorDetail}</Alert.Description>}
                  </Alert.Content>
                  {onRetry && (
                    <Button size="sm" variant="outline" loading={retrying} onClick={onRetry}>
                      Retry
                    </Button>
                  )}
                </Alert.Root>
              </Table.Cell>
            </Table.Row>
          )}
          {loading &&
            rows.length === 0 &&
            Array.from({ length: loadingRows }, (_, i) => (
              <Table.Row key={`loading-${i}`} data-loading="">
                <Table.Cell colSpan={span}>
                  <Skeleton height="5" />
                </Table.Cell>
              </Table.Row>
            ))}
          {!loading && !failed && rows.length === 0 && (
            <Table.Row>
              <Table.Cell colSpan={span}>
                <EmptyState.Root size="sm">
                  <EmptyState.Content>
                    <EmptyState.Title>{empty}</EmptyState.Title>
                    {emptyDetail && <EmptyState.Description>{emptyDetail}</EmptyState.Description>}
                    {emptyAction}
                  </EmptyState.Content>
                </EmptyState.Root>
              </Table.Cell>
            </Table.Row>
          )}
          {rows.map((row) => {
            const key = rowKey(row);
            const expandable = !!expansion && (expansion.canExpand?.(row) ?? true);
            const expanded = expandable && open.has(key);
            const detailId = `${id}-detail-${key}`;
            return (
              <Fragment key={key}>
                <Table.Row {...clickable(row)} {...rowProps?.(row)}>
                  {expansion && (
                    <Table.Cell>
                      <IconButton
                        size="2xs"
                        variant="ghost"
                        aria-label={expansion.toggleLabel(row, expanded)}
                        aria-expanded={expanded}
                        aria-controls={expanded ? detailId : undefined}
                        disabled={!expandable}
                        onClick={() => toggle(key)}
                      >
                        <span aria-hidden>{expanded ? '▾' : '▸'}</span>
                      </IconButton>
                    </Table.Cell>
                  )}
                  {columns.map((c) => (
                    <Table.Cell key={c.key} textAlign={c.align} {...(typeof c.cellProps === 'function' ? c.cellProps(row) : c.cellProps)}>
                      {c.cell(row)}
                    </Table.Cell>
                  ))}
                </Table.Row>
                {expanded && (
                  <Table.Row id={detailId}>
                    <Table.Cell colSpan={span} bg="bg.muted" whiteSpace="normal">
                      {expansion.detail(row)}
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

  if (!pagination) return table;
  return (
    <Stack gap={3}>
      {table}
      <Pager {...pagination} />
    </Stack>
  );
}
