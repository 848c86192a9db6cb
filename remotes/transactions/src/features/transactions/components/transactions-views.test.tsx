import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { listHandlers, transactionsLoader, type Seen } from '../../../testing/fixtures';
import { paramsOfView, viewQueryOf } from './transactions-page';
import { parseFilters } from '../utils/query-state';

/** A view of the Transactions list, as the gateway answers it. */
const VIEW = { id: '7', list: 'transactions', name: 'Deposits of collab 1', query: 'collabId=1&transactionTypeFilter=1', pageSize: 10, mine: true };

function viewServer(bodies: Record<string, unknown>[] = []) {
  server.use(
    http.get(`${GATEWAY}/api/v1/views`, () => HttpResponse.json({ views: [VIEW] })),
    http.get(`${GATEWAY}/api/v1/views/7`, () => HttpResponse.json({ view: VIEW, droppedFilters: [] })),
    http.post(`${GATEWAY}/api/v1/watchlists`, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      bodies.push(body);
      return HttpResponse.json({ watchlist: { id: '5', ...body } });
    }),
  );
}

const query = (router: { state: { location: { search: string } } }) => new URLSearchParams(router.state.location.search);

describe('Saved views on the Transactions page (issue 29)', () => {
  it('writes the collab as collabId in a view, and reads it back with the page size', () => {
    const f = parseFilters(new URLSearchParams('selectedCollabId=3&transactionStatusesFilter=1,2&currentPage=4&pageSize=20'));
    expect(viewQueryOf(f).toString()).toBe('transactionStatusesFilter=1%2C2&collabId=3');
    expect(paramsOfView({ id: '9', query: new URLSearchParams('collabId=3&bogus=1&transactionTypeFilter=2'), pageSize: 20, columns: [], sort: '', timeZone: '' }).toString()).toBe(
      'view=9&selectedCollabId=3&transactionTypeFilter=2&pageSize=20',
    );
  });

  it('opens ?view= with its filters and page size, keeps the view through two filter changes, and marks it edited', async () => {
    const seen: Seen = { lists: [] };
    server.use(...listHandlers(undefined, seen));
    viewServer();
    const { user, router } = renderApp('/transactions?view=7', { user: ADMIN, loader: transactionsLoader() });
    await waitFor(() => expect(query(router).get('selectedCollabId')).toBe('1'), { timeout: 15_000 });
    expect(query(router).get('view')).toBe('7');
    expect(query(router).get('pageSize')).toBe('10');
    await waitFor(() => expect(seen.lists.some((u) => u.pathname.endsWith('/collabs/1/transactions/advanced') && u.searchParams.get('take') === '10' && u.searchParams.get('type') === '1')).toBe(true));
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    await waitFor(() => expect(screen.queryByText('edited')).toBeNull());

    const filters = screen.getByRole('form', { name: 'Transaction filters' });
    await user.selectOptions(within(filters).getAllByRole('combobox')[0]!, '2');
    await waitFor(() => expect(query(router).get('transactionTypeFilter')).toBe('2'));
    await user.type(within(filters).getByRole('textbox', { name: 'Currency' }), 'php{Enter}');
    await waitFor(() => expect(query(router).get('currencyFilter')).toBe('PHP'));
    expect(query(router).get('transactionTypeFilter')).toBe('2');
    expect(query(router).get('view')).toBe('7');
    expect(query(router).get('selectedCollabId')).toBe('1');
    expect(await screen.findByText('edited')).toBeInTheDocument();
  });

  it('keeps a text filter applied with Enter when the type changes next (no view open)', async () => {
    const seen: Seen = { lists: [] };
    server.use(...listHandlers(undefined, seen));
    server.use(http.get(`${GATEWAY}/api/v1/views`, () => HttpResponse.json({ views: [] })));
    const { user, router } = renderApp('/transactions', { user: ADMIN, loader: transactionsLoader() });
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    const filters = screen.getByRole('form', { name: 'Transaction filters' });
    await user.type(within(filters).getByRole('textbox', { name: 'Merchant CID' }), 'cid-1{Enter}');
    await waitFor(() => expect(query(router).get('merchantCidFilter')).toBe('cid-1'));
    await user.selectOptions(within(filters).getAllByRole('combobox')[0]!, '1');
    await waitFor(() => expect(query(router).get('transactionTypeFilter')).toBe('1'));
    expect(query(router).get('merchantCidFilter')).toBe('cid-1');
  });

  it("submitting the Save as dialog (opened from inside the filter form) saves the view and does not apply the filters' drafts", async () => {
    const posts: Record<string, unknown>[] = [];
    server.use(...listHandlers());
    server.use(
      http.get(`${GATEWAY}/api/v1/views`, () => HttpResponse.json({ views: [] })),
      http.post(`${GATEWAY}/api/v1/views`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        posts.push(body);
        return HttpResponse.json({ view: { ...body, id: '30', mine: true } });
      }),
      http.get(`${GATEWAY}/api/v1/views/30`, () => HttpResponse.json({ view: { ...posts[0], id: '30', mine: true }, droppedFilters: [] })),
    );
    const { user, router } = renderApp('/transactions?transactionTypeFilter=1', { user: ADMIN, loader: transactionsLoader() });
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    const filters = screen.getByRole('form', { name: 'Transaction filters' });
    // A text filter typed, not applied.
    await user.type(within(filters).getByRole('textbox', { name: 'Merchant CID' }), 'draft-cid');
    await user.click(within(filters).getByRole('button', { name: 'Save as…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save view as' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Deposits{Enter}');
    await waitFor(() => expect(query(router).get('view')).toBe('30'));
    expect(posts).toHaveLength(1);
    expect(posts[0]).toMatchObject({ name: 'Deposits', query: 'transactionTypeFilter=1' });
    expect(query(router).has('merchantCidFilter')).toBe(false);
    expect(within(filters).getByRole('textbox', { name: 'Merchant CID' })).toHaveValue('draft-cid');
  });

  it('pins the open, unedited view with its viewId, and an edited one without', async () => {
    const bodies: Record<string, unknown>[] = [];
    server.use(...listHandlers());
    viewServer(bodies);
    const { user, router } = renderApp('/transactions?view=7', { user: ADMIN, loader: transactionsLoader() });
    await waitFor(() => expect(query(router).get('selectedCollabId')).toBe('1'), { timeout: 15_000 });
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    await waitFor(() => expect(screen.queryByText('edited')).toBeNull());
    const pin = async (name: string) => {
      await user.click(screen.getByRole('button', { name: 'Pin as watchlist' }));
      const dialog = await screen.findByRole('dialog', { name: 'Pin as watchlist' });
      await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), name);
      await user.click(within(dialog).getByRole('button', { name: 'Pin' }));
      await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Pin as watchlist' })).toBeNull());
    };
    await pin('From the view');
    expect(bodies[0]).toMatchObject({ name: 'From the view', viewId: '7' });

    const filters = screen.getByRole('form', { name: 'Transaction filters' });
    await user.selectOptions(within(filters).getAllByRole('combobox')[0]!, '2');
    expect(await screen.findByText('edited')).toBeInTheDocument();
    await pin('Edited');
    expect(bodies[1]).toMatchObject({ name: 'Edited' });
    expect(bodies[1]).not.toHaveProperty('viewId');
  });
});
