import { Button, ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { DataTable, type DataColumn, type DataTableProps, type SortState } from './data-table';

interface Fruit {
  id: string;
  name: string;
  price: number;
}

const FRUITS: Fruit[] = [
  { id: 'a', name: 'Apple', price: 3 },
  { id: 'b', name: 'Banana', price: 1 },
];

type Key = 'name' | 'price';

const COLUMNS: DataColumn<Fruit, Key>[] = [
  { key: 'name', header: 'Name', cell: (f) => f.name, sortKey: 'name' },
  { key: 'price', header: 'Price', cell: (f) => f.price.toFixed(2), sortKey: 'price', align: 'end' },
  { key: 'note', header: 'Note', cell: (f) => (f.price > 2 ? 'dear' : 'cheap') },
];

function renderTable(props: Partial<DataTableProps<Fruit, Key>> = {}) {
  const user = userEvent.setup();
  const view = render(
    <ChakraProvider value={defaultSystem}>
      <DataTable<Fruit, Key> label="Fruits" columns={COLUMNS} rows={FRUITS} rowKey={(f) => f.id} empty="No fruit yet." {...props} />
    </ChakraProvider>,
  );
  return { user, ...view };
}

const table = () => screen.getByRole('table', { name: 'Fruits' });
const bodyRows = () => within(table()).getAllByRole('row').slice(1);
const cells = (row: HTMLElement) => within(row).getAllByRole('cell').map((c) => c.textContent);

describe('DataTable', () => {
  it('shows the rows under the headers, with the row props and the alignment', () => {
    renderTable({ rowProps: (f) => ({ 'data-testid': `fruit-${f.id}` }), caption: 'Fruit in stock' });
    expect(within(table()).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name↕', 'Price↕', 'Note']);
    expect(bodyRows().map(cells)).toEqual([
      ['Apple', '3.00', 'dear'],
      ['Banana', '1.00', 'cheap'],
    ]);
    expect(screen.getByTestId('fruit-b')).toHaveTextContent('Banana');
    expect(table()).toHaveAttribute('aria-busy', 'false');
    expect(within(table()).getByText('Fruit in stock').tagName).toBe('CAPTION');
  });

  it('stands skeleton rows in while the first rows load, and keeps shown rows while more load', () => {
    const { rerender } = renderTable({ rows: [], loading: true, loadingRows: 4 });
    expect(table()).toHaveAttribute('aria-busy', 'true');
    expect(bodyRows()).toHaveLength(4);
    expect(bodyRows().every((r) => r.hasAttribute('data-loading'))).toBe(true);
    expect(screen.queryByText('No fruit yet.')).toBeNull();

    rerender(
      <ChakraProvider value={defaultSystem}>
        <DataTable<Fruit, Key> label="Fruits" columns={COLUMNS} rows={FRUITS} rowKey={(f) => f.id} empty="No fruit yet." loading />
      </ChakraProvider>,
    );
    expect(table()).toHaveAttribute('aria-busy', 'true');
    expect(bodyRows().map((r) => r.hasAttribute('data-loading'))).toEqual([false, false]);
  });

  it('says so in one row spanning every column when there are no rows', () => {
    renderTable({ rows: [], emptyDetail: 'Fruit arrives on Mondays.', emptyAction: <Button>Order fruit</Button> });
    const [row] = bodyRows();
    expect(bodyRows()).toHaveLength(1);
    const cell = within(row!).getByRole('cell');
    expect(cell).toHaveAttribute('colspan', '3');
    expect(cell).toHaveTextContent('No fruit yet.');
    expect(cell).toHaveTextContent('Fruit arrives on Mondays.');
    expect(within(cell).getByRole('button', { name: 'Order fruit' })).toBeInTheDocument();
  });

  it('shows a failed load as an alert row with Retry instead of the empty row, the shown rows staying', async () => {
    const onRetry = vi.fn();
    const { user, rerender } = renderTable({ rows: [], error: 'The fruit could not be loaded.', errorDetail: 'database down', onRetry });
    const alert = within(table()).getByRole('alert');
    expect(alert).toHaveTextContent('The fruit could not be loaded.');
    expect(alert).toHaveTextContent('database down');
    expect(screen.queryByText('No fruit yet.')).toBeNull();
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(onRetry).toHaveBeenCalledTimes(1);

    rerender(
      <ChakraProvider value={defaultSystem}>
        <DataTable<Fruit, Key> label="Fruits" columns={COLUMNS} rows={FRUITS} rowKey={(f) => f.id} empty="No fruit yet." error="The fruit could not be refreshed." />
      </ChakraProvider>,
    );
    expect(bodyRows()).toHaveLength(3);
    expect(within(bodyRows()[0]!).getByRole('alert')).toHaveTextContent('The fruit could not be refreshed.');
    expect(within(table()).queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('leaves sorting to the caller: header buttons ask for a sort, aria-sort tells the current one', async () => {
    function Sorted() {
      const [sort, setSort] = useState<SortState<Key> | null>(null);
      const rows = sort ? [...FRUITS].sort((a, b) => (a[sort.key] < b[sort.key] ? -1 : 1) * (sort.direction === 'ascending' ? 1 : -1)) : FRUITS;
      return <DataTable<Fruit, Key> label="Fruits" columns={COLUMNS} rows={rows} rowKey={(f) => f.id} empty="No fruit yet." sort={sort} onSort={setSort} />;
    }
    const user = userEvent.setup();
    render(
      <ChakraProvider value={defaultSystem}>
        <Sorted />
      </ChakraProvider>,
    );
    const header = (name: string) => within(table()).getByRole('columnheader', { name: new RegExp(`^${name}`) });
    expect(header('Price')).toHaveAttribute('aria-sort', 'none');
    expect(header('Note')).not.toHaveAttribute('aria-sort');
    expect(within(header('Note')).queryByRole('button')).toBeNull();

    await user.click(within(header('Price')).getByRole('button', { name: /Price/ }));
    expect(header('Price')).toHaveAttribute('aria-sort', 'ascending');
    expect(header('Name')).toHaveAttribute('aria-sort', 'none');
    expect(bodyRows().map((r) => cells(r)[0])).toEqual(['Banana', 'Apple']);

    await user.click(within(header('Price')).getByRole('button', { name: /Price/ }));
    expect(header('Price')).toHaveAttribute('aria-sort', 'descending');
    expect(bodyRows().map((r) => cells(r)[0])).toEqual(['Apple', 'Banana']);

    // Another column starts ascending; the keyboard presses the header button too.
    within(header('Name')).getByRole('button').focus();
    await user.keyboard('{Enter}');
    expect(header('Name')).toHaveAttribute('aria-sort', 'ascending');
    expect(header('Price')).toHaveAttribute('aria-sort', 'none');
  });

  it('expands a row into a detail row spanning the table, and collapses it again', async () => {
    const { user } = renderTable({
      expansion: {
        detail: (f) => <p>Details of {f.name}</p>,
        toggleLabel: (f, open) => `${open ? 'Hide' : 'Show'} details of ${f.name}`,
        canExpand: (f) => f.id !== 'b',
      },
    });
    expect(bodyRows()).toHaveLength(2);
    expect(screen.getByRole('button', { name: 'Show details of Banana' })).toBeDisabled();
    const toggle = screen.getByRole('button', { name: 'Show details of Apple' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');

    await user.click(toggle);
    const hide = screen.getByRole('button', { name: 'Hide details of Apple' });
    expect(hide).toHaveAttribute('aria-expanded', 'true');
    expect(bodyRows()).toHaveLength(3);
    const detail = bodyRows()[1]!;
    expect(detail).toHaveTextContent('Details of Apple');
    expect(hide).toHaveAttribute('aria-controls', detail.id);
    expect(within(detail).getByRole('cell')).toHaveAttribute('colspan', '4');

    await user.click(hide);
    expect(screen.queryByText('Details of Apple')).toBeNull();
    expect(bodyRows()).toHaveLength(2);
  });

  it('makes clickable rows focusable: a click, Enter or Space opens the row, a control inside keeps its own click', async () => {
    const onRowClick = vi.fn();
    const onBuy = vi.fn();
    const columns: DataColumn<Fruit, Key>[] = [
      ...COLUMNS,
      {
        key: 'actions',
        header: 'Actions',
        cell: (f) => (
          <Button size="xs" onClick={() => onBuy(f.id)}>
            Buy {f.name}
          </Button>
        ),
      },
    ];
    const { user } = renderTable({ columns, onRowClick: (f) => onRowClick(f.id) });
    const [apple, banana] = bodyRows();
    expect(apple).toHaveAttribute('tabindex', '0');

    await user.click(within(apple!).getByText('Apple'));
    expect(onRowClick).toHaveBeenLastCalledWith('a');

    banana!.focus();
    await user.keyboard('{Enter}');
    expect(onRowClick).toHaveBeenLastCalledWith('b');
    await user.keyboard(' ');
    expect(onRowClick).toHaveBeenCalledTimes(3);

    await user.click(screen.getByRole('button', { name: 'Buy Apple' }));
    expect(onBuy).toHaveBeenCalledWith('a');
    // Enter on the button presses the button, not the row.
    screen.getByRole('button', { name: 'Buy Banana' }).focus();
    await user.keyboard('{Enter}');
    expect(onBuy).toHaveBeenLastCalledWith('b');
    expect(onRowClick).toHaveBeenCalledTimes(3);
  });

  it('leaves rows out of the tab order when they are not clickable', () => {
    renderTable();
    expect(bodyRows()[0]).not.toHaveAttribute('tabindex');
  });

  it('pages under the table, by offset or by keyset', async () => {
    const onPage = vi.fn();
    const onPageSize = vi.fn();
    const { user, rerender } = renderTable({
      pagination: { label: 'Fruit pages', page: 2, totalPages: 3, totalCount: 25, pageSize: 10, pageSizes: [10, 20], onPage, onPageSize },
    });
    const nav = screen.getByRole('navigation', { name: 'Fruit pages' });
    expect(nav).toHaveTextContent('Page 2 of 3');
    expect(nav).toHaveTextContent('25 total');
    await user.click(within(nav).getByRole('button', { name: 'Next' }));
    expect(onPage).toHaveBeenLastCalledWith(3);
    await user.selectOptions(within(nav).getByRole('combobox', { name: 'Rows per page' }), '20');
    expect(onPageSize).toHaveBeenLastCalledWith(20);

    // A keyset list knows only whether another page follows.
    rerender(
      <ChakraProvider value={defaultSystem}>
        <DataTable<Fruit, Key>
          label="Fruits"
          columns={COLUMNS}
          rows={FRUITS}
          rowKey={(f) => f.id}
          empty="No fruit yet."
          pagination={{ label: 'Fruit pages', page: 4, hasNext: false, summary: 'The latest 40 fruits', onPage }}
        />
      </ChakraProvider>,
    );
    const keyset = screen.getByRole('navigation', { name: 'Fruit pages' });
    expect(within(keyset).getByText('Page 4')).toBeInTheDocument();
    expect(keyset).toHaveTextContent('The latest 40 fruits');
    expect(within(keyset).getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(within(keyset).queryByRole('combobox')).toBeNull();
    await user.click(within(keyset).getByRole('button', { name: 'Previous' }));
    expect(onPage).toHaveBeenLastCalledWith(3);
  });
});
