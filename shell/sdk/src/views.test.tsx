import '@paygate/devkit/testing/pointer-event';
import { Button, ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { useCallback, useMemo } from 'react';
import { createMemoryRouter, RouterProvider, useLocation, useSearchParams } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, tokensFor } from '@paygate/devkit/testing/tokens';
import { session, useUser } from './console';
import { keepView, normalizeViewQuery, ViewsBar, type AppliedView, type SavedView } from './views';

const MORNING: SavedView = { id: '7', list: 'transactions', name: 'Morning', query: 'status=1', pageSize: 10, mine: true };
const TEAM: SavedView = { id: '8', list: 'transactions', name: 'Team', query: 'currency=USD', shared: true, mine: false, ownerName: 'bob' };

type TestFilters = { status: string; currency: string };
const serialize = (f: TestFilters) => new URLSearchParams(Object.entries(f).filter(([, v]) => v !== ''));
const filtersOfUrl = (q: URLSearchParams) => serialize({ status: q.get('status') ?? '', currency: q.get('currency') ?? '' });

/** The list under test keeps two filters in its URL and writes them as the Transactions page does. */
function TestList({ applied }: { applied: AppliedView[] }) {
  const user = useUser();
  const [params, setParams] = useSearchParams();
  const location = useLocation();
  const filters: TestFilters = { status: params.get('status') ?? '', currency: params.get('currency') ?? '' };
  const update = (patch: Partial<TestFilters>) => setParams(keepView(serialize({ ...filters, ...patch }), params));
  const filterParams = useMemo(() => serialize({ status: params.get('status') ?? '', currency: params.get('currency') ?? '' }), [params]);
  const onApply = useCallback(
    (v: AppliedView) => {
      applied.push(v);
      setParams(new URLSearchParams([['view', v.id], ...v.query.entries()]), { replace: true });
    },
    [applied, setParams],
  );
  return (
    <>
      <ViewsBar list="transactions" user={user} filterParams={filterParams} filterParamsOf={filtersOfUrl} layout={{ pageSize: 20 }} onApply={onApply} />
      <Button onClick={() => update({ status: '2' })}>Status 2</Button>
      <Button onClick={() => update({ currency: 'PHP' })}>Currency PHP</Button>
      <output data-testid="url">{location.search}</output>
    </>
  );
}

function renderList(path: string) {
  session.signIn(tokensFor(ADMIN));
  const applied: AppliedView[] = [];
  const router = createMemoryRouter([{ path: '/list', element: <TestList applied={applied} /> }], { initialEntries: [path] });
  // As the shell does: the session reads the router's location (the bar reads the URL at a click).
  session.bindNavigation({
    current: () => `${router.state.location.pathname}${router.state.location.search}`,
    go: (to) => void router.navigate(to, { replace: true }),
  });
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const user = userEvent.setup();
  render(
    <ChakraProvider value={defaultSystem}>
      <QueryClientProvider client={client}>
        <RouterProvider router={router} />
      </QueryClientProvider>
    </ChakraProvider>,
  );
  // The URL as the list last rendered it (the router's state runs ahead of the render).
  const search = () => new URLSearchParams(screen.queryByTestId('url')?.textContent ?? '');
  return { user, applied, router, search };
}

interface Calls {
  puts: { id: string; body: Record<string, unknown> }[];
  posts: Record<string, unknown>[];
  deletes: string[];
  defaults: unknown[];
}

/** viewHandlers serve `views` as the gateway does; GetView answers each with droppedFilters from `dropped`. */
function viewHandlers(views: SavedView[], dropped: Record<string, string[]> = {}): Calls {
  const calls: Calls = { puts: [], posts: [], deletes: [], defaults: [] };
  const byId = new Map(views.map((v) => [v.id, { ...v }]));
  server.use(
    http.get(`${GATEWAY}/api/v1/views`, () => HttpResponse.json({ views: [...byId.values()] })),
    http.get(`${GATEWAY}/api/v1/views/:id`, ({ params }) => {
      const v = byId.get(String(params.id));
      if (!v) return HttpResponse.json({ code: 'not_found', message: 'view not found.' }, { status: 404 });
      const lost = dropped[v.id] ?? [];
      const query = new URLSearchParams(v.query);
      lost.forEach((k) => query.delete(k));
      return HttpResponse.json({ view: { ...v, query: query.toString() }, droppedFilters: lost });
    }),
    http.put(`${GATEWAY}/api/v1/views/defaults/:list`, async ({ request }) => {
      const body = (await request.json()) as { viewId: string };
      calls.defaults.push(body);
      for (const v of byId.values()) v.isDefault = v.id === body.viewId;
      return HttpResponse.json(body.viewId === '0' ? {} : { view: byId.get(body.viewId) });
    }),
    http.put(`${GATEWAY}/api/v1/views/:id`, async ({ params, request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      calls.puts.push({ id: String(params.id), body });
      const v = { ...byId.get(String(params.id))!, ...body } as SavedView;
      byId.set(v.id, v);
      return HttpResponse.json({ view: v });
    }),
    http.post(`${GATEWAY}/api/v1/views`, async ({ request }) => {
      const body = (await request.json()) as Record<string, unknown>;
      calls.posts.push(body);
      const v = { ...body, id: '21', mine: true } as SavedView;
      byId.set(v.id, v);
      return HttpResponse.json({ view: v });
    }),
    http.delete(`${GATEWAY}/api/v1/views/:id`, ({ params }) => {
      calls.deletes.push(String(params.id));
      byId.delete(String(params.id));
      return HttpResponse.json({});
    }),
  );
  return calls;
}

const edited = () => screen.queryByText('edited');

/** chooseAction opens the open view's actions and picks one, pressing and releasing as a hand does. */
async function chooseAction(user: ReturnType<typeof userEvent.setup>, view: string, name: string) {
  await user.click(screen.getByRole('button', { name: `Actions of the view ${view}` }));
  const item = await screen.findByRole('menuitem', { name });
  await user.pointer({ keys: '[MouseLeft>]', target: item });
  await user.pointer({ keys: '[/MouseLeft]', target: item });
}

afterEach(() => session.clear());

describe('normalizeViewQuery', () => {
  it('sorts by name and value, leaves out empty values, the view and the page', () => {
    expect(normalizeViewQuery('b=2&a=&view=7&page=3&currentPage=2&a=9&a=1')).toBe('a=1&a=9&b=2');
    expect(normalizeViewQuery('status=1&currency=USD')).toBe(normalizeViewQuery(new URLSearchParams('currency=USD&status=1')));
  });
});

describe('keepView', () => {
  it("keeps the open view in a list's new query", () => {
    expect(keepView(new URLSearchParams('status=2'), new URLSearchParams('view=7&status=1')).toString()).toBe('view=7&status=2');
    expect(keepView(new URLSearchParams('status=2'), new URLSearchParams('status=1')).toString()).toBe('status=2');
  });
});

describe('ViewsBar (issue 29)', () => {
  it('opening ?view= fills the filters once, with the view and its page size', async () => {
    viewHandlers([MORNING, TEAM]);
    const { applied, search } = renderList('/list?view=7');
    await waitFor(() => expect(search().get('status')).toBe('1'));
    expect(search().get('view')).toBe('7');
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatchObject({ id: '7', pageSize: 10, columns: [], timeZone: '' });
    const menu = screen.getByRole('combobox', { name: 'Saved view' });
    await waitFor(() => expect(menu).toHaveValue('7'));
    expect(within(menu).getByRole('option', { name: 'Morning' })).toBeInTheDocument();
    expect(within(menu).getByRole('option', { name: 'Team (shared by bob)' })).toBeInTheDocument();
    await waitFor(() => expect(edited()).toBeNull());
    expect(applied).toHaveLength(1);
  });

  it('keeps two successive filter edits and the view, and marks the view edited (the regression)', async () => {
    viewHandlers([MORNING, TEAM]);
    const { user, applied, search } = renderList('/list?view=7');
    await waitFor(() => expect(search().get('status')).toBe('1'));
    await user.click(screen.getByRole('button', { name: 'Status 2' }));
    await waitFor(() => expect(search().get('status')).toBe('2'));
    await user.click(screen.getByRole('button', { name: 'Currency PHP' }));
    await waitFor(() => expect(search().get('currency')).toBe('PHP'));
    expect(search().get('status')).toBe('2');
    expect(search().get('view')).toBe('7');
    expect(applied).toHaveLength(1);
    expect(await screen.findByText('edited')).toHaveAccessibleName('Edited: the filters differ from the view');
  });

  it('a link with filters keeps them and shows the view edited', async () => {
    viewHandlers([MORNING]);
    const { applied, search } = renderList('/list?view=7&status=2');
    expect(await screen.findByText('edited')).toBeInTheDocument();
    expect(applied).toHaveLength(0);
    expect(search().get('status')).toBe('2');
  });

  it('Save writes the current filters to an own view; the edited mark goes', async () => {
    const calls = viewHandlers([MORNING]);
    const { user, search } = renderList('/list?view=7');
    await waitFor(() => expect(search().get('status')).toBe('1'));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Save' })).toBeNull());
    await user.click(screen.getByRole('button', { name: 'Currency PHP' }));
    await user.click(await screen.findByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.puts).toHaveLength(1));
    expect(calls.puts[0]).toEqual({
      id: '7',
      body: { name: 'Morning', query: 'currency=PHP&status=1', columns: [], sort: '', pageSize: 20, timeZone: '', shared: false },
    });
    await waitFor(() => expect(edited()).toBeNull());
    expect(search().get('view')).toBe('7');
  });

  it('Save and Save as save the filters of the URL at the click, before the list rendered them (the race)', async () => {
    const calls = viewHandlers([MORNING]);
    const { router, search } = renderList('/list?view=7&status=2');
    const save = await screen.findByRole('button', { name: 'Save' });
    // A filter change the router has taken and React not rendered yet: react-router renders a
    // navigation in a transition, which a click can come before.
    await router.navigate('/list?view=7&status=2&currency=PHP');
    expect(search().get('currency')).toBeNull();
    fireEvent.click(save);
    await waitFor(() => expect(calls.puts).toHaveLength(1));
    expect(calls.puts[0]?.body).toMatchObject({ query: 'currency=PHP&status=2' });

    await waitFor(() => expect(search().get('currency')).toBe('PHP'));
    fireEvent.click(screen.getByRole('button', { name: 'Save as…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save view as' });
    await router.navigate('/list?view=7&status=3&currency=PHP');
    expect(search().get('status')).toBe('2');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.posts).toHaveLength(1));
    expect(calls.posts[0]).toMatchObject({ query: 'currency=PHP&status=3' });
    await waitFor(() => expect(search().get('view')).toBe('21'));
    expect(search().get('status')).toBe('3');
  });

  it("offers no Save on someone else's shared view; Save as creates a new, shared view and opens it", async () => {
    const calls = viewHandlers([MORNING, TEAM]);
    const { user, search } = renderList('/list?view=8');
    await waitFor(() => expect(search().get('currency')).toBe('USD'));
    await user.click(screen.getByRole('button', { name: 'Status 2' }));
    expect(await screen.findByText('edited')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save as…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save view as' });
    const name = within(dialog).getByRole('textbox', { name: 'Name' });
    await user.clear(name);
    await user.type(name, 'Mine now');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Share with my team' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(calls.posts).toHaveLength(1));
    expect(calls.posts[0]).toEqual({ list: 'transactions', name: 'Mine now', query: 'currency=USD&status=2', columns: [], sort: '', pageSize: 20, timeZone: '', shared: true });
    await waitFor(() => expect(search().get('view')).toBe('21'));
    expect(search().get('status')).toBe('2');
    expect(search().get('currency')).toBe('USD');
    await waitFor(() => expect(edited()).toBeNull());
  });

  it("shows the server's refusal in the Save as dialog, which stays open", async () => {
    viewHandlers([MORNING]);
    server.use(http.post(`${GATEWAY}/api/v1/views`, () => HttpResponse.json({ code: 'already_exists', message: 'A view named Morning already exists.' }, { status: 409 })));
    const { user } = renderList('/list?status=3');
    await user.click(await screen.findByRole('button', { name: 'Save as…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save view as' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Morning');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('A view named Morning already exists.')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Save view as' })).toBeInTheDocument();
  });

  it('deletes a view only after the confirmation, and closes it keeping the filters', async () => {
    const calls = viewHandlers([MORNING]);
    const { user, search } = renderList('/list?view=7');
    await waitFor(() => expect(search().get('status')).toBe('1'));
    await chooseAction(user, 'Morning', 'Delete');
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete view' });
    expect(confirm).toHaveTextContent('Delete the view Morning?');
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(calls.deletes).toEqual([]);
    await chooseAction(user, 'Morning', 'Delete');
    await user.click(within(await screen.findByRole('alertdialog', { name: 'Delete view' })).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(calls.deletes).toEqual(['7']));
    await waitFor(() => expect(search().has('view')).toBe(false));
    expect(search().get('status')).toBe('1');
  });

  it('names the filters the server dropped', async () => {
    viewHandlers([{ ...MORNING, query: 'collabId=3&status=1' }], { '7': ['collabId'] });
    const { search } = renderList('/list?view=7');
    expect(await screen.findByText("This view's collabId filter was dropped: you can no longer see it.")).toBeInTheDocument();
    await waitFor(() => expect(search().get('status')).toBe('1'));
    expect(search().has('collabId')).toBe(false);
    await waitFor(() => expect(edited()).toBeNull());
  });

  it('opens the default view when the list opens with no query, and not otherwise', async () => {
    viewHandlers([{ ...MORNING, isDefault: true }, TEAM]);
    const first = renderList('/list');
    await waitFor(() => expect(first.search().get('view')).toBe('7'));
    await waitFor(() => expect(first.search().get('status')).toBe('1'));
    expect(first.applied).toHaveLength(1);
  });

  it('leaves a list opened with filters as it is, default view or not', async () => {
    viewHandlers([{ ...MORNING, isDefault: true }]);
    const { search } = renderList('/list?currency=PHP');
    await screen.findByRole('option', { name: 'Morning (default)' });
    expect(search().toString()).toBe('currency=PHP');
  });

  it('sets and clears the default, and shares an own view', async () => {
    const calls = viewHandlers([MORNING]);
    const { user, search } = renderList('/list?view=7');
    await waitFor(() => expect(search().get('status')).toBe('1'));
    await chooseAction(user, 'Morning', 'Set as default');
    await waitFor(() => expect(calls.defaults).toEqual([{ viewId: '7' }]));
    await screen.findByRole('option', { name: 'Morning (default)' });
    await chooseAction(user, 'Morning', 'Clear default');
    await waitFor(() => expect(calls.defaults).toEqual([{ viewId: '7' }, { viewId: '0' }]));
    await chooseAction(user, 'Morning', 'Share');
    await waitFor(() => expect(calls.puts).toHaveLength(1));
    // Sharing keeps the stored filters, whatever the list shows.
    expect(calls.puts[0]?.body).toMatchObject({ name: 'Morning', query: 'status=1', shared: true });
  });

  it("choosing a view in the menu opens it, replacing the list's filters", async () => {
    viewHandlers([MORNING, TEAM]);
    const { user, applied, search } = renderList('/list?status=3');
    const menu = await screen.findByRole('combobox', { name: 'Saved view' });
    await screen.findByRole('option', { name: 'Team (shared by bob)' });
    await user.selectOptions(menu, '8');
    await waitFor(() => expect(search().get('currency')).toBe('USD'));
    expect(search().has('status')).toBe(false);
    expect(search().get('view')).toBe('8');
    expect(applied.map((v) => v.id)).toEqual(['8']);
    // No Rename, Share or Delete for someone else's view.
    await user.click(screen.getByRole('button', { name: 'Actions of the view Team' }));
    expect(await screen.findByRole('menuitem', { name: 'Set as default' })).toBeInTheDocument();
    expect(screen.queryByRole('menuitem', { name: 'Delete' })).toBeNull();
    expect(screen.queryByRole('menuitem', { name: 'Rename' })).toBeNull();
  });
});
