import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { SCREENS, type RemoteManifest } from '@paygate/sdk';
import { renderApp, withRemote } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import type { FraudJson, ListFraudsResponseJson } from '@paygate/gen/gateway/v1/frauds_pb';
import { describe, expect, it } from 'vitest';
import { baseHandlers, transactionsLoader } from '../../../testing/fixtures';
import { FraudManagementPage } from './fraud-page';

/** fraud builds a fraud on the wire. */
function fraud(id: number, over: Partial<FraudJson> = {}): FraudJson {
  return {
    id: String(id),
    referenceId: `FRD-${id}`,
    clientId: `client-${id}`,
    merchantClientId: `client-${id}`,
    level: 2,
    detectedAtUtc: '2026-11-20T10:00:00Z',
    updatedAtUtc: '2026-11-20T10:00:00Z',
    reason: `Velocity: 12 payments from merchant client id client-${id} within 10 minutes.`,
    rule: 'velocity',
    merchantId: 1,
    transactionCount: 2,
    transactionsDtos: [
      { id: `${id}01`, amount: '100.00', currency: 'PHP', transactionType: 1, createdUtc: '2026-11-20T09:55:00Z', providerName: 'GoVip', merchantName: 'Acme Games', merchantId: 1, callbackDeliveryStatus: '1/1' },
      { id: `${id}02`, amount: '250.00', currency: 'PHP', transactionType: 2, createdUtc: '2026-11-20T09:56:00Z', providerName: 'GoVip', merchantName: 'Acme Games', merchantId: 1, callbackDeliveryStatus: '0/1' },
    ],
    ...over,
  };
}

interface Seen {
  lists: URL[];
  posts: { path: string; body: unknown }[];
}

function handlers(seen: Seen, frauds: FraudJson[], total = frauds.length) {
  return [
    ...baseHandlers(),
    http.get(`${GATEWAY}/api/v1/frauds`, ({ request }) => {
      seen.lists.push(new URL(request.url));
      const body: ListFraudsResponseJson = { clientFrauds: frauds, totalCount: String(total), currentPage: 1, totalPages: Math.ceil(total / 5) };
      return HttpResponse.json(body);
    }),
    http.post(`${GATEWAY}/api/v1/frauds/:id/status/:status`, async ({ request, params }) => {
      seen.posts.push({ path: `${String(params.id)}/${String(params.status)}`, body: await request.json() });
      return HttpResponse.json(fraud(Number(params.id), { reviewStatus: Number(params.status) }));
    }),
  ];
}

const newSeen = (): Seen => ({ lists: [], posts: [] });

function renderPage(user: TestUser = ADMIN) {
  return renderApp('/fraud-management', { user, loader: transactionsLoader() });
}

describe('Fraud Management page (spec 02 "Fraud Management")', () => {
  it('lists frauds with level badges and the default filters, and expands a row into its transactions', async () => {
    const seen = newSeen();
    server.use(...handlers(seen, [fraud(7), fraud(8, { level: 4, reviewStatus: 1, reviewedBy: 'ana', notes: 'Card testing', reviewCompletedAtUtc: '2026-11-20T11:00:00Z' }), fraud(9, { level: 0 })]));
    const { user } = renderPage();
    expect(await screen.findByRole('heading', { name: 'Fraud Management' })).toBeInTheDocument();
    const row7 = await screen.findByTestId('fraud-7');
    expect(within(row7).getByTestId('fraud-level')).toHaveTextContent('Medium');
    expect(within(screen.getByTestId('fraud-8')).getByTestId('fraud-level')).toHaveTextContent('Critical');
    expect(within(screen.getByTestId('fraud-9')).getByTestId('fraud-level')).toHaveTextContent('None');
    expect(within(screen.getByTestId('fraud-8')).getByTestId('fraud-status')).toHaveTextContent('Confirmed');
    expect(within(screen.getByTestId('fraud-8')).getByText('Card testing')).toBeInTheDocument();
    expect(within(row7).getByText('Velocity: 12 payments from merchant client id client-7 within 10 minutes.')).toBeInTheDocument();

    // The first call: page 1 (shown as the first page), 5 rows, the last 7 days until an hour ahead.
    const q = seen.lists[0]!.searchParams;
    expect(q.get('page')).toBe('1');
    expect(q.get('take')).toBe('5');
    const from = new Date(q.get('startDate')!);
    const to = new Date(q.get('endDate')!);
    expect(from.toISOString()).toMatch(/T00:00:00\.000Z$/);
    expect(Math.round((to.getTime() - Date.now()) / 60_000)).toBe(60);
    expect(Math.round((Date.now() - from.getTime()) / 86_400_000)).toBeGreaterThanOrEqual(7);
    expect(q.has('status')).toBe(false);

    expect(screen.queryByTestId('fraud-tx-701')).not.toBeInTheDocument();
    await user.click(within(row7).getByRole('button', { name: 'Show transactions of FRD-7' }));
    const tx = await screen.findByTestId('fraud-tx-702');
    expect(within(tx).getByText('250.00 PHP')).toBeInTheDocument();
    expect(within(tx).getByText('Cash Out')).toBeInTheDocument();
    expect(within(tx).getByText('0/1')).toBeInTheDocument();
    expect(within(screen.getByTestId('fraud-tx-701')).getByText('Cash In')).toBeInTheDocument();
  });

  it('sends the filters, marks the merchant filter invalid without a merchant, and pages', async () => {
    const seen = newSeen();
    server.use(...handlers(seen, [fraud(7)], 12));
    const { user } = renderPage();
    await screen.findByTestId('fraud-7');
    await user.type(screen.getByRole('textbox', { name: 'Merchant client ID' }), 'c-9');
    expect(await screen.findByText('Select a merchant to filter by merchant client ID.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Search' })).toBeDisabled();
    const merchant = screen.getByRole('combobox', { name: 'Merchant' });
    await waitFor(() => expect(within(merchant).getByRole('option', { name: 'Acme Games (1)' })).toBeInTheDocument());
    await user.selectOptions(merchant, 'Acme Games (1)');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status filter' }), 'Denied');
    await user.type(screen.getByRole('textbox', { name: 'Transaction ID' }), '55');
    await user.type(screen.getByRole('textbox', { name: 'Client ID' }), 'ip-1');
    await user.type(screen.getByRole('textbox', { name: 'Reference ID' }), 'FRD-1');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(seen.lists.length).toBeGreaterThan(1));
    const q = seen.lists.at(-1)!.searchParams;
    // Untouched days keep the default range, which ends an hour ahead.
    expect(Math.round((new Date(q.get('endDate')!).getTime() - Date.now()) / 60_000)).toBe(60);
    expect(Object.fromEntries(['status', 'merchantId', 'merchantClientId', 'transactionId', 'clientId', 'referenceId', 'page'].map((k) => [k, q.get(k)]))).toEqual({
      status: '2', merchantId: '1', merchantClientId: 'c-9', transactionId: '55', clientId: 'ip-1', referenceId: 'FRD-1', page: '1',
    });

    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(seen.lists.at(-1)!.searchParams.get('page')).toBe('2'));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Rows per page' }), '20 / page');
    await waitFor(() => expect(seen.lists.at(-1)!.searchParams.get('take')).toBe('20'));
    expect(seen.lists.at(-1)!.searchParams.get('page')).toBe('1');
  });

  it('applies typed days with the date rules: start of the first day to the end of the last', async () => {
    const seen = newSeen();
    server.use(...handlers(seen, [fraud(7)]));
    const { user } = renderPage();
    await screen.findByTestId('fraud-7');
    const from = screen.getByLabelText('From day');
    const to = screen.getByLabelText('To day');
    await user.clear(from);
    await user.type(from, '2025-03-02');
    await user.clear(to);
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(seen.lists.length).toBeGreaterThan(1));
    let q = seen.lists.at(-1)!.searchParams;
    expect([q.get('startDate'), q.get('endDate')]).toEqual(['2025-03-02T00:00:00.000Z', '2025-03-02T23:59:59.999Z']);
    await user.type(to, '2025-03-05');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    await waitFor(() => expect(seen.lists.at(-1)!.searchParams.get('endDate')).toBe('2025-03-05T23:59:59.999Z'));
    q = seen.lists.at(-1)!.searchParams;
    expect(q.get('startDate')).toBe('2025-03-02T00:00:00.000Z');
  });

  it('saves a review in the Manage fraud dialog only with a changed status or note, and a note to deny', async () => {
    const seen = newSeen();
    server.use(...handlers(seen, [fraud(7)]));
    const { user } = renderPage();
    const row = await screen.findByTestId('fraud-7');
    await user.click(within(row).getByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Manage fraud' });
    const save = within(dialog).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Status' }), 'Denied');
    expect(within(dialog).getByText('A note is required to deny a fraud.')).toBeInTheDocument();
    expect(save).toBeDisabled();
    await user.type(within(dialog).getByRole('textbox', { name: 'Notes' }), 'A known customer');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Cancel callbacks sending' }));
    expect(save).toBeEnabled();
    await user.click(save);
    await waitFor(() => expect(seen.posts).toHaveLength(1));
    expect(seen.posts[0]).toEqual({ path: '7/2', body: { notes: 'A known customer', isCallbacksSendingCanceled: true } });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Manage fraud' })).not.toBeInTheDocument());
  });

  it('says "Failed to update status: …" when the save is refused', async () => {
    const seen = newSeen();
    // The first matching handler answers.
    server.use(
      http.post(`${GATEWAY}/api/v1/frauds/:id/status/:status`, () => HttpResponse.json({ code: 'invalid', message: 'notes are required to deny a fraud.' }, { status: 400 })),
      ...handlers(seen, [fraud(7)]),
    );
    const { user } = renderPage();
    await user.click(within(await screen.findByTestId('fraud-7')).getByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Manage fraud' });
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Status' }), 'Confirmed');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Failed to update status: notes are required to deny a fraud.')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Manage fraud' })).toBeInTheDocument();
  });

  it('says "Failed to fetch frauds: …" when the list fails', async () => {
    server.use(...baseHandlers(), http.get(`${GATEWAY}/api/v1/frauds`, () => HttpResponse.json({ code: 'internal', message: 'database down' }, { status: 500 })));
    renderPage();
    expect(await screen.findByText('Failed to fetch frauds: database down')).toBeInTheDocument();
  });

  it('shows a merchant user its list without the merchant filter, and the Edit button only with Edit Frauds', async () => {
    const seen = newSeen();
    server.use(...handlers(seen, [fraud(7)]));
    renderPage({ username: 'madmin', roles: ['Merchant Admin'], merchantIds: [1] });
    const row = await screen.findByTestId('fraud-7');
    expect(within(row).queryByRole('button', { name: 'Edit' })).not.toBeInTheDocument();
    expect(screen.queryByRole('combobox', { name: 'Merchant' })).not.toBeInTheDocument();
    expect(seen.lists[0]!.searchParams.has('merchantId')).toBe(false);
  });

  it('refuses a user without View Frauds', async () => {
    // The shell's guard sends such a user elsewhere; the page checks too (here mounted where the guard lets the user in).
    server.use(...baseHandlers());
    const elsewhere: RemoteManifest<'transactions'> = { name: 'transactions', routes: [{ path: SCREENS.transactions.path, Component: FraudManagementPage }] };
    renderApp('/transactions', { user: { username: 'fin', roles: ['Merchant Finance Manager'], permissions: ['Get Transactions'], merchantIds: [1] }, loader: withRemote(elsewhere) });
    expect(await screen.findByText("You don't have permission to view this page.")).toBeInTheDocument();
  });
});

describe('Saved views on the Fraud Management page (issue 29)', () => {
  it('opens ?view= with its filters, days and page size, and saves the applied filters as a new view', async () => {
    const seen = newSeen();
    const posts: Record<string, unknown>[] = [];
    const view = { id: '4', list: 'frauds', name: 'Pending of client 9', query: 'status=0&clientId=client-9&from=2026-11-01&to=2026-11-10', pageSize: 10, mine: true };
    server.use(
      ...handlers(seen, [fraud(7)]),
      http.get(`${GATEWAY}/api/v1/views`, () => HttpResponse.json({ views: [view] })),
      http.get(`${GATEWAY}/api/v1/views/4`, () => HttpResponse.json({ view })),
      http.post(`${GATEWAY}/api/v1/views`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        posts.push(body);
        return HttpResponse.json({ view: { ...body, id: '5', mine: true } });
      }),
    );
    const { user, router } = renderApp('/fraud-management?view=4', { user: ADMIN, loader: transactionsLoader() });
    await waitFor(() => expect(seen.lists.some((u) => u.searchParams.get('clientId') === 'client-9' && u.searchParams.get('status') === '0' && u.searchParams.get('take') === '10')).toBe(true), {
      timeout: 15_000,
    });
    expect(screen.getByRole('textbox', { name: 'Client ID' })).toHaveValue('client-9');
    expect(screen.getByLabelText('From day')).toHaveValue('2026-11-01');
    await waitFor(() => expect(screen.queryByText('edited')).toBeNull());

    await user.clear(screen.getByRole('textbox', { name: 'Client ID' }));
    await user.type(screen.getByRole('textbox', { name: 'Client ID' }), 'client-3');
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('edited')).toBeInTheDocument();
    expect(router.state.location.search).toBe('?view=4');
    await user.click(screen.getByRole('button', { name: 'Save as…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Save view as' });
    await user.clear(within(dialog).getByRole('textbox', { name: 'Name' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Client 3');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(posts).toHaveLength(1));
    expect(posts[0]).toMatchObject({ list: 'frauds', name: 'Client 3', query: 'clientId=client-3&from=2026-11-01&status=0&to=2026-11-10', pageSize: 10, columns: [] });
    await waitFor(() => expect(router.state.location.search).toBe('?view=5'));
  });
});
