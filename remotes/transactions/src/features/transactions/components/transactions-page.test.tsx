import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { COLLABS, listHandlers, page, rowMenuItems, runRowAction, transactionsLoader, tx, type Seen } from '../../../testing/fixtures';

function renderPage(path = '/transactions', user: TestUser = ADMIN) {
  return renderApp(path, { user, loader: transactionsLoader() });
}

const row = (id: number) => screen.getByTestId(`transaction-${id}`);

/** confirmManual presses the confirm button of a manual action's question. */
async function confirmManual(user: ReturnType<typeof renderPage>['user'], label: string) {
  const question = await screen.findByRole('alertdialog', { name: `${label}?` });
  await user.click(within(question).getByRole('button', { name: label }));
}


describe('Transactions page (spec 02 §2)', () => {
  it('lists the page of transactions for an admin with collab labels merchant - provider', async () => {
    const seen: Seen = { lists: [] };
    server.use(...listHandlers(undefined, seen));
    const { user } = renderPage();
    expect(await screen.findByTestId('transaction-11')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Transactions'));
    const collab = screen.getByRole('combobox', { name: 'Select Collab' });
    await waitFor(() => expect(within(collab).getByRole('option', { name: 'Acme Games - GoVip' })).toBeInTheDocument());
    const q = seen.lists[0]!;
    expect(q.pathname).toBe('/api/v1/collabs/0/transactions/advanced');
    expect(q.searchParams.get('page')).toBe('1');
    expect(q.searchParams.get('take')).toBe('5');
    expect(q.searchParams.get('from')).toMatch(/T00:00:00\.000Z$/);
    expect(q.searchParams.get('to')).toMatch(/T23:59:59\.999Z$/);
    // The default date range is a date set, so totals are requested (spec 02 §5).
    expect(q.searchParams.get('includeTotalAmounts')).toBe('true');
    expect(within(row(11)).getByText('Pending').closest('[data-status-class]')).toHaveAttribute('data-status-class', 'pending');
    expect(within(row(12)).getByText('Success').closest('[data-status-class]')).toHaveAttribute('data-status-class', 'success');
    expect(within(row(11)).getByRole('button', { name: 'Edit' })).toBeInTheDocument();
    expect(within(row(11)).getByRole('button', { name: 'Logs' })).toBeInTheDocument();
    // The other actions are in the row's menu, each under its name.
    expect(await rowMenuItems(user, 11)).toEqual(['Callbacks', 'Data', 'Export', 'Search in Logs', 'Mark Failed', 'Manual Load']);
    expect(await rowMenuItems(user, 12)).toEqual(['Callbacks', 'Data', 'Export', 'Search in Logs', 'Mark Failed', 'Mark Success']);
  });

  it('says how far behind the list may be when the gateway read it from a lagging replica, and nothing when it is current', async () => {
    let lag: number | undefined = 7;
    server.use(...listHandlers(() => page([tx(11)], lag === undefined ? {} : { dataLagSeconds: lag })));
    const { queryClient } = renderPage();
    expect(await screen.findByTestId('transaction-11')).toBeInTheDocument();
    const notice = screen.getByRole('status', { name: 'Data lag' });
    await waitFor(() => expect(notice).toHaveTextContent('Data may be up to 7 s behind.'));
    // The replica caught up: the next answer carries no lag, and the notice goes.
    lag = undefined;
    await queryClient.refetchQueries();
    await waitFor(() => expect(screen.getByRole('status', { name: 'Data lag' })).toHaveTextContent(''));
    expect(screen.queryByText(/Data may be up to/)).toBeNull();
  });

  it("opens after the Providers page filled the shared query cache with its own collab list (an admin's key 'all')", async () => {
    server.use(...listHandlers());
    const { queryClient } = renderPage();
    // What the Providers page caches for an admin: the answer's object, not a list of options.
    queryClient.setQueryData(['merchant-collabs', 'all'], { collabs: [], isMaintenanceModeEnabled: false });
    expect(await screen.findByTestId('transaction-11')).toBeInTheDocument();
    const collab = screen.getByRole('combobox', { name: 'Select Collab' });
    await waitFor(() => expect(within(collab).getByRole('option', { name: 'Acme Games - GoVip' })).toBeInTheDocument());
  });

  it('shows Select Provider with provider labels, and no edit, logs or manual buttons, to a merchant user', async () => {
    server.use(...listHandlers());
    const { user } = renderPage('/transactions', MERCHANT_USER);
    expect(await screen.findByTestId('transaction-11')).toBeInTheDocument();
    const collab = screen.getByRole('combobox', { name: 'Select Provider' });
    await waitFor(() => expect(within(collab).getByRole('option', { name: 'GoVip' })).toBeInTheDocument());
    for (const name of ['Edit', 'Logs', 'Mark Failed', 'Manual Load']) expect(within(row(11)).queryByRole('button', { name })).toBeNull();
    // Without Edit Transactions and View Logs the row keeps Callbacks and Data, and its menu only Export (Files Access).
    expect(within(row(11)).getAllByRole('button').map((b) => b.getAttribute('aria-label') ?? b.textContent)).toEqual([
      'Expand transaction 11',
      'Callbacks',
      'Data',
      'More actions for transaction 11',
    ]);
    expect(await rowMenuItems(user, 11)).toEqual(['Export']);
  });

  const twoGoVips = () =>
    http.get(`${GATEWAY}/api/v1/merchant-collabs`, () =>
      HttpResponse.json({ collabs: [...COLLABS, { id: 5, merchant: { id: 2, name: 'Blue Harbor Shop' }, provider: { id: 1, name: 'GoVip' } }] }),
    );

  it("lists the Current Merchant's collabs only (spec 01 §4)", async () => {
    server.use(...listHandlers());
    server.use(twoGoVips());
    const { user } = renderPage('/transactions', { username: 'two-shops', roles: ['Merchant Admin'], merchantIds: [1, 2] });
    await screen.findByTestId('transaction-11');
    const picker = screen.getByRole('combobox', { name: 'Select Provider' });
    const options = () => within(picker).getAllByRole('option').map((o) => o.textContent);
    // The sidebar settles on the first merchant.
    await waitFor(() => expect(options()).toEqual(['Select Provider', 'GoVip']));
    expect(within(picker).getByRole('option', { name: 'GoVip' })).toHaveValue('1');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Current Merchant' }), 'Blue Harbor Shop (2)');
    await waitFor(() => expect(options()).toEqual(['Select Provider', 'FbPay', 'GoVip']));
    expect(within(picker).getByRole('option', { name: 'GoVip' })).toHaveValue('5');
  });

  it('labels collabs that would read the same apart, with their merchant', async () => {
    server.use(...listHandlers());
    server.use(twoGoVips());
    renderPage('/transactions', { username: 'no-shop', roles: ['Support'], merchantIds: [] });
    await screen.findByTestId('transaction-11');
    const picker = screen.getByRole('combobox', { name: 'Select Provider' });
    await waitFor(() =>
      expect(within(picker).getAllByRole('option').map((o) => o.textContent)).toEqual([
        'Select Provider',
        'GoVip · Acme Games (1)',
        'FbPay',
        'GoVip · Blue Harbor Shop (2)',
      ]),
    );
  });

  it('searches by the route id, leaving the filters out and disabled', async () => {
    const seen: Seen = { lists: [] };
    server.use(...listHandlers(() => page([tx(11)]), seen));
    renderPage('/transactions/11?transactionTypeFilter=1');
    expect(await screen.findByTestId('transaction-11')).toBeInTheDocument();
    const q = seen.lists[0]!;
    expect(q.searchParams.get('search')).toBe('11');
    expect(q.searchParams.get('type')).toBeNull();
    expect(q.searchParams.get('from')).toBeNull();
    expect(screen.getByRole('textbox', { name: 'Search' })).toHaveValue('11');
    expect(screen.getByRole('combobox', { name: 'Type' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Apply Filters' })).toBeDisabled();
  });

  it('requests totals for a collab, shows total and average, and warns when the currency has none', async () => {
    const seen: Seen = { lists: [] };
    server.use(...listHandlers(() => page([tx(11), tx(12)], { totalCount: 4, totalAmounts: { PHP: '1000.00' } }), seen));
    const { user } = renderPage('/transactions?selectedCollabId=1&transactionStatusesFilter=4,3');
    expect(await screen.findByText('1,000.00 PHP')).toBeInTheDocument();
    expect(screen.getByText('250.00 PHP')).toBeInTheDocument();
    const q = seen.lists[0]!;
    expect(q.pathname).toBe('/api/v1/collabs/1/transactions/advanced');
    expect(q.searchParams.get('includeTotalAmounts')).toBe('true');
    expect(q.searchParams.get('statuses')).toBe('4,3');
    expect(screen.getByRole('button', { name: 'Statuses: Success, Pending' })).toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Totals currency' }), 'USD');
    expect(await screen.findByText('Total amount for USD is not available')).toBeInTheDocument();
  });

  it('reports a conflict on Manual Load and reloads the list', async () => {
    const seen: Seen = { lists: [] };
    let sent: URL | undefined;
    server.use(
      ...listHandlers(undefined, seen),
      http.post(`${GATEWAY}/api/v1/transactions/:id/status/:status`, ({ request }) => {
        sent = new URL(request.url);
        return HttpResponse.json({ code: 'conflict', message: 'Transaction with id 11 status changed' }, { status: 409 });
      }),
    );
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    const before = seen.lists.length;
    await runRowAction(user, 11, 'Manual Load');
    await confirmManual(user, 'Manual Load');
    expect(await screen.findByText('Setting Manual Mode Failed - Conflict')).toBeInTheDocument();
    expect(screen.getByText('Transaction with id 11 status changed. Reloading transactions...')).toBeInTheDocument();
    expect(sent?.pathname).toBe('/api/v1/transactions/11/status/4');
    expect(sent?.searchParams.get('transactionStatus')).toBe('3');
    await waitFor(() => expect(seen.lists.length).toBeGreaterThan(before));
  });

  it('marks a transaction failed with the status the operator saw', async () => {
    let sent: URL | undefined;
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/transactions/:id/cancel`, ({ request }) => {
        sent = new URL(request.url);
        return HttpResponse.json(tx(11, { transactionStatus: -1, isCallbackSendingCanceled: true }));
      }),
    );
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    await runRowAction(user, 11, 'Mark Failed');
    await confirmManual(user, 'Mark Failed');
    await waitFor(() => expect(sent?.pathname).toBe('/api/v1/transactions/11/cancel'));
    expect(sent?.searchParams.get('transactionStatus')).toBe('3');
  });

  it('asks before each manual action, naming the transaction, its amount, the new status and the stopped callbacks', async () => {
    const sent: string[] = [];
    server.use(
      ...listHandlers(() => page([tx(11, { amount: '1234.5' }), tx(12, { transactionType: 2, transactionStatus: 4, amount: '250000', currency: 'USD' })])),
      http.post(`${GATEWAY}/api/v1/transactions/:id/*`, ({ request }) => {
        sent.push(new URL(request.url).pathname);
        return HttpResponse.json(tx(11));
      }),
    );
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');

    await runRowAction(user, 11, 'Mark Failed');
    let question = await screen.findByRole('alertdialog', { name: 'Mark Failed?' });
    expect(question).toHaveTextContent(
      'Transaction ref-11 (ID 11) of 1,234.50 PHP will be set to Cancelled. Its callbacks will be stopped: the merchant will not be sent this result.',
    );
    await user.click(within(question).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());

    await runRowAction(user, 11, 'Manual Load');
    question = await screen.findByRole('alertdialog', { name: 'Manual Load?' });
    expect(question).toHaveTextContent('Transaction ref-11 (ID 11) of 1,234.50 PHP will be set to Success. Its callbacks will be stopped');
    await user.click(within(question).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());

    await runRowAction(user, 12, 'Mark Success');
    question = await screen.findByRole('alertdialog', { name: 'Mark Success?' });
    expect(question).toHaveTextContent('Transaction ref-12 (ID 12) of 250,000.00 USD will be set to Success. Its callbacks will be stopped');
    await user.click(within(question).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    // Nothing is sent until the operator confirms.
    expect(sent).toEqual([]);

    await runRowAction(user, 12, 'Mark Success');
    await confirmManual(user, 'Mark Success');
    await waitFor(() => expect(sent).toEqual(['/api/v1/transactions/12/status/4', '/api/v1/transactions/12/callbacks/cancel']));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
  });

  it('opens the logs by stage, and offers Retry when they fail to load', async () => {
    let fail = true;
    server.use(
      ...listHandlers(),
      http.get(`${GATEWAY}/api/v1/logs/transactions/:id`, () =>
        fail
          ? HttpResponse.json({ code: 'internal', message: 'boom' }, { status: 500 })
          : HttpResponse.json([
              { id: '1', stage: 'Initialization', level: 'Information', message: 'Payment received' },
              { id: '2', stage: 'Status Change', level: 'Information', message: 'Status 1 → 4' },
            ]),
      ),
    );
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    await user.click(within(row(11)).getByRole('button', { name: 'Logs' }));
    const dialog = await screen.findByRole('dialog', { name: 'Transaction Logs - 11' });
    expect(await within(dialog).findByText('Failed to fetch logs: boom')).toBeInTheDocument();
    fail = false;
    await user.click(within(dialog).getByRole('button', { name: 'Retry' }));
    expect(await within(dialog).findByRole('region', { name: 'Initialization' })).toHaveTextContent('Payment received');
    expect(within(dialog).getByRole('region', { name: 'Status Change' })).toBeInTheDocument();
  });

  it('shows the empty states of the Additional Data dialog', async () => {
    server.use(...listHandlers());
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    await runRowAction(user, 11, 'Data');
    const dialog = await screen.findByRole('dialog', { name: 'Additional Transaction Data' });
    expect(within(dialog).getByText('No merchant data available')).toBeInTheDocument();
    expect(within(dialog).getByText('No Paygate data available')).toBeInTheDocument();
  });

  it('enables Commit State Change only for a status other than the current one', async () => {
    server.use(...listHandlers());
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    await user.click(within(row(11)).getByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit transaction' });
    const commit = within(dialog).getByRole('button', { name: 'Commit State Change' });
    expect(commit).toBeDisabled();
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'New status' }), 'Pending (3)');
    expect(commit).toBeDisabled();
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'New status' }), 'Success (4)');
    expect(commit).toBeEnabled();
  });

  it('searches in logs once the form is valid and flags partial matches', async () => {
    let body: Record<string, unknown> | undefined;
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/transactions/search-in-logs`, async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({
          totalCount: 1,
          transactions: [{ id: '11', merchantName: 'Acme Games', providerName: 'GoVip', amount: '100.00', currency: 'PHP', transactionStatus: 3, matchScore: 2, matchedJsonKey: 'reference', jsonSource: 'API Request' }],
        });
      }),
    );
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    await user.click(screen.getByRole('button', { name: 'Search in Logs' }));
    const dialog = await screen.findByRole('dialog', { name: 'Search Transactions in Logs' });
    const go = within(dialog).getByRole('button', { name: 'Search' });
    expect(go).toBeDisabled();
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Transaction Type' }), 'Deposit');
    await user.type(within(dialog).getByRole('textbox', { name: 'Search Term' }), 'ref-11');
    expect(go).toBeEnabled();
    await user.click(go);
    expect(await within(dialog).findByText('Partial Matches Detected')).toBeInTheDocument();
    expect(within(dialog).getByRole('link', { name: '11' })).toHaveAttribute('href', '/transactions/11');
    expect(body).toMatchObject({ transactionType: 1, searchTerm: 'ref-11', timezoneOffsetMinutes: 0 });
    expect(String(body?.fromDate)).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00$/);
  });

  it('shows the callback tally as "x a/b" with a sentence for assistive technology', async () => {
    server.use(
      ...listHandlers(() =>
        page([
          tx(11, { callbackDeliveryStatus: '2/2' }),
          tx(12, { callbackDeliveryStatus: '1/2' }),
          tx(13, { callbackDeliveryStatus: '0/1' }),
          tx(14, { callbackDeliveryStatus: '0/0' }),
          tx(15),
        ]),
      ),
    );
    renderPage();
    await screen.findByTestId('transaction-11');
    const mark = (id: number) => within(row(id)).getByRole('img', { name: /callback/i });
    expect(within(row(11)).getByRole('img', { name: 'Callbacks delivered: 2 of 2' })).toHaveTextContent('✓ 2/2');
    expect(mark(11)).toHaveAttribute('data-delivery', 'success');
    expect(within(row(12)).getByRole('img', { name: 'Callbacks partly delivered: 1 of 2' })).toHaveTextContent('! 1/2');
    expect(mark(12)).toHaveAttribute('data-delivery', 'partial');
    expect(within(row(13)).getByRole('img', { name: 'Callbacks not delivered: 0 of 1' })).toHaveTextContent('✗ 0/1');
    expect(within(row(14)).getByRole('img', { name: 'No callbacks sent' })).toHaveTextContent('0/0');
    expect(mark(14)).toHaveAttribute('data-delivery', 'none');
    // A transaction whose tally is left out of the JSON reads 0/0.
    expect(within(row(15)).getByRole('img', { name: 'No callbacks sent' })).toHaveTextContent('0/0');
  });
  it('highlights the polling-attempts figure as a warning above 10 attempts', async () => {
    server.use(...listHandlers(() => page([tx(11, { pollingAttempts: 11 }), tx(12, { pollingAttempts: 10 }), tx(13)])));
    renderPage();
    await screen.findByTestId('transaction-11');
    const warn = within(row(11)).getByLabelText('Polling attempts: 11, more than 10');
    expect(warn).toHaveAttribute('data-polling-warning', 'true');
    expect(warn).toHaveTextContent('11 polls');
    const calm = within(row(12)).getByLabelText('Polling attempts: 10');
    expect(calm).toHaveAttribute('data-polling-warning', 'false');
    expect(within(row(13)).queryByLabelText(/Polling attempts/)).toBeNull();
  });
  it('opens Search in Logs from a row, prefilled from that transaction', async () => {
    let body: Record<string, unknown> | undefined;
    server.use(
      ...listHandlers(() => page([tx(11, { transactionType: 2, createdUtc: '2026-11-21T10:03:00Z', amount: '150.00', merchantClientId: 'client-7' })])),
      http.post(`${GATEWAY}/api/v1/transactions/search-in-logs`, async ({ request }) => {
        body = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ totalCount: 0, transactions: [] });
      }),
    );
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    await runRowAction(user, 11, 'Search in Logs');
    const dialog = await screen.findByRole('dialog', { name: 'Search Transactions in Logs' });
    expect(within(dialog).getByRole('combobox', { name: 'Transaction Type' })).toHaveDisplayValue('Withdrawal');
    expect(within(dialog).getByRole('textbox', { name: 'Search Term' })).toHaveValue('ref-11');
    expect(within(dialog).getByLabelText('Start')).toHaveValue('2026-11-21T09:58');
    expect(within(dialog).getByRole('textbox', { name: 'Amount' })).toHaveValue('150.00');
    expect(within(dialog).getByRole('textbox', { name: 'Currency' })).toHaveValue('PHP');
    expect(within(dialog).getByRole('textbox', { name: 'Merchant Client ID' })).toHaveValue('client-7');
    await user.click(within(dialog).getByRole('button', { name: 'Search' }));
    await waitFor(() =>
      expect(body).toMatchObject({ transactionType: 2, searchTerm: 'ref-11', fromDate: '2026-11-21T09:58:00', toDate: '2026-11-21T10:13:00', amount: '150.00', currency: 'PHP', merchantClientId: 'client-7' }),
    );
  });
  it('requests totals with the default date range and shows them, with no warning when the server has the currency', async () => {
    const seen: Seen = { lists: [] };
    server.use(...listHandlers((url) => page([tx(11), tx(12)], { totalAmounts: url.searchParams.get('includeTotalAmounts') === 'true' ? { PHP: '200.00' } : {} }), seen));
    renderPage();
    await screen.findByTestId('transaction-11');
    const totals = screen.getByRole('group', { name: 'Totals' });
    await waitFor(() => expect(totals).toHaveTextContent('Total: 200.00 PHP'));
    expect(totals).toHaveTextContent('Average: 100.00 PHP');
    expect(seen.lists[0]!.searchParams.get('includeTotalAmounts')).toBe('true');
    expect(screen.queryByText('Total amount for PHP is not available')).toBeNull();
  });

  it('asks no totals for a free-text search without a collab, and warns of none while the next page is still loading', async () => {
    const seen: Seen = { lists: [] };
    server.use(
      // Before listHandlers: the first handler that matches answers.
      http.get(`${GATEWAY}/api/v1/collabs/:id/transactions/advanced`, async ({ request }) => {
        const url = new URL(request.url);
        seen.lists.push(url);
        if (url.searchParams.get('search')) return HttpResponse.json(page([tx(11)]));
        await new Promise((r) => setTimeout(r, 400));
        return HttpResponse.json(page([tx(11), tx(12)], { totalAmounts: { PHP: '200.00' } }));
      }),
      ...listHandlers(),
    );
    const { user } = renderPage('/transactions/11');
    await screen.findByTestId('transaction-11');
    expect(seen.lists[0]!.searchParams.get('includeTotalAmounts')).toBeNull();
    expect(screen.getByRole('group', { name: 'Totals' })).toHaveTextContent('Total: -');
    await user.click(screen.getByRole('button', { name: 'Clear Search' }));
    await waitFor(() => expect(screen.getByRole('group', { name: 'Totals' })).toHaveTextContent('Total: 200.00 PHP'));
    expect(seen.lists.at(-1)!.searchParams.get('includeTotalAmounts')).toBe('true');
    expect(screen.queryByText('Total amount for PHP is not available')).toBeNull();
  });
  it('reads the transaction afresh in the Edit dialog, and says "Failed to find transaction: {msg}" when it cannot', async () => {
    let fail = false;
    server.use(
      http.get(`${GATEWAY}/api/v1/transactions/:id`, ({ params }) =>
        fail
          ? HttpResponse.json({ code: 'not_found', message: `Transaction ${String(params.id)} was not found.` }, { status: 404 })
          : HttpResponse.json(tx(Number(params.id), { transactionStatus: 4, pollingAttempts: 12 })),
      ),
      ...listHandlers(),
    );
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    await user.click(within(row(11)).getByRole('button', { name: 'Edit' }));
    let dialog = await screen.findByRole('dialog', { name: 'Edit transaction' });
    // The row said Pending; the transaction is Success now.
    await waitFor(() => expect(dialog).toHaveTextContent('current status: Success'));
    expect(within(dialog).getByText(/Polling attempts: 12/)).toHaveAttribute('data-polling-warning', 'true');
    await user.click(within(dialog).getAllByRole('button', { name: 'Close' })[0]!);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit transaction' })).toBeNull());

    fail = true;
    await user.click(within(row(12)).getByRole('button', { name: 'Edit' }));
    dialog = await screen.findByRole('dialog', { name: 'Edit transaction' });
    expect(await screen.findByText('Failed to find transaction: Transaction 12 was not found.')).toBeInTheDocument();
    // The row's copy stays on screen.
    expect(dialog).toHaveTextContent('current status: Success');
  });

  it('reports a conflict on Mark Failed and reloads the list', async () => {
    const seen: Seen = { lists: [] };
    server.use(
      ...listHandlers(undefined, seen),
      http.post(`${GATEWAY}/api/v1/transactions/:id/cancel`, () => HttpResponse.json({ code: 'conflict', message: 'Transaction with id 11 status changed' }, { status: 409 })),
    );
    const { user } = renderPage();
    await screen.findByTestId('transaction-11');
    const before = seen.lists.length;
    await runRowAction(user, 11, 'Mark Failed');
    await confirmManual(user, 'Mark Failed');
    expect(await screen.findByText('Setting Cancelled Status Failed - Conflict')).toBeInTheDocument();
    expect(screen.getByText('Transaction with id 11 status changed. Reloading transactions...')).toBeInTheDocument();
    await waitFor(() => expect(seen.lists.length).toBeGreaterThan(before));
  });
});
