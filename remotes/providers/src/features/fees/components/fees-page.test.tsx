import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { FeeJson } from '@paygate/gen/gateway/v1/fees_pb';
import { session } from '@paygate/sdk';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
import { beforeEach, describe, expect, it } from 'vitest';
import { collab, COLLABS, MERCHANTS, providersLoader } from '../../../testing/fixtures';
import { FeesPage } from './fees-page';

const FEES = `${GATEWAY}/api/v1/fees`;

/** fee builds a fee on the wire: a 1.5 % PHP deposit fee of collab 1 unless told otherwise. */
function fee(id: number, over: Partial<FeeJson> = {}): FeeJson {
  return {
    id: String(id),
    collabId: 1,
    transactionType: 1,
    payTypeId: 0,
    currencyFromId: 1,
    currencyToId: 1,
    currencyFrom: 'PHP',
    currencyTo: 'PHP',
    amountMin: '',
    amountMax: '',
    priority: 0,
    enabled: true,
    feeType: 1,
    value: '1.5000',
    payer: 2,
    ...over,
  };
}

const GLOBAL = fee(1, { collabId: 0, transactionType: 2, feeType: 2, value: '15.0000', payer: 1 });
const OWN = fee(2, { amountMin: '10.00', amountMax: '500.00', priority: 3 });

/** The reads every fee page makes; seen collects the list calls. */
function handlers(seen: URL[] = [], fees: FeeJson[] = [GLOBAL, OWN]) {
  return [
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS)),
    http.get(`${GATEWAY}/api/v1/merchant-collabs`, () => HttpResponse.json({ collabs: COLLABS })),
    http.get(`${GATEWAY}/api/v1/currencies`, () => HttpResponse.json([{ id: 1, code: 'PHP' }, { id: 2, code: 'USD' }])),
    http.get(`${GATEWAY}/api/v1/pay-types`, () => HttpResponse.json([{ id: 1, name: 'GCash', code: 'GCASH' }, { id: 3, name: 'QR Ph', code: 'QRPH' }])),
    http.get(`${FEES}/winners`, () =>
      HttpResponse.json({ winners: [{ transactionType: 1, payTypeId: 1, currency: 'PHP', amountMin: '10.00', amountMax: '500.00', feeId: '2' }] }),
    ),
    http.get(FEES, ({ request }) => {
      seen.push(new URL(request.url));
      return HttpResponse.json({ fees, totalCount: String(fees.length), currentPage: 1, totalPages: fees.length ? 1 : 0 });
    }),
  ];
}

const table = () => screen.findByRole('table', { name: 'Fees' });
const row = (id: number) => screen.getByTestId(`fee-${id}`);
const EDITOR: TestUser = { username: 'ma', roles: ['Merchant Admin'], merchantIds: [1], permissions: ['View Fees', 'Edit Fees', 'Get Providers'] };

beforeEach(() => {
  localStorage.clear();
});

describe('Fees page (spec 02 "Fees")', () => {
  it('starts at page 1 with 5 rows and lists the fees, titled Paygate - Fees', async () => {
    const seen: URL[] = [];
    server.use(...handlers(seen));
    renderApp('/fees', { user: ADMIN, loader: providersLoader() });
    const t = await table();
    await within(t).findByText('10.00 – 500.00');
    await waitFor(() => expect(document.title).toBe('Paygate - Fees'));
    expect(seen[0]?.searchParams.get('page')).toBe('1');
    expect(seen[0]?.searchParams.get('take')).toBe('5');
    expect(seen[0]?.searchParams.has('collabId')).toBe(false);
    expect(within(t).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'ID', 'Collab', 'Type', 'Pay Type', 'Currencies', 'Amounts', 'Fee', 'Payer', 'Priority', 'Status', 'Actions',
    ]);
    expect(within(row(1)).getByText('Global')).toBeInTheDocument();
    expect(within(row(1)).getByText('15.00 PHP')).toBeInTheDocument();
    expect(within(row(1)).getByText('Client fee')).toBeInTheDocument();
    await waitFor(() => expect(within(row(2)).getByText('Acme Games - GoVip')).toBeInTheDocument());
    expect(within(row(2)).getByText('1.5%')).toBeInTheDocument();
    expect(within(row(2)).getByRole('button', { name: 'Edit fee 2' })).toBeInTheDocument();
    expect(within(row(1)).getByRole('button', { name: 'Delete fee 1' })).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Rows per page' })).toHaveValue('5');
    expect(screen.getByRole('button', { name: 'Add Fee' })).toBeInTheDocument();
  });

  it('opened as /fees?collabId= filters by the collab and shows which fee wins its payments', async () => {
    const seen: URL[] = [];
    server.use(...handlers(seen));
    renderApp('/fees?collabId=1', { user: ADMIN, loader: providersLoader() });
    await table();
    expect(seen[0]?.searchParams.get('collabId')).toBe('1');
    const applied = await screen.findByRole('table', { name: 'Applied fees' }, { timeout: 5_000 });
    expect(within(applied).getByText('Fee 2')).toBeInTheDocument();
    expect(within(applied).getByText('GCash')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Collab' })).toHaveValue('1'));
  });

  it('filters by type, currency and state, from page 1', async () => {
    const seen: URL[] = [];
    server.use(...handlers(seen));
    const { user } = renderApp('/fees', { user: ADMIN, loader: providersLoader() });
    await table();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Type' }), '2');
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Currency' }), ['USD']);
    await user.selectOptions(screen.getByRole('combobox', { name: 'State' }), 'false');
    await waitFor(() => {
      const last = seen.at(-1)!;
      expect(last.searchParams.get('transactionType')).toBe('2');
      expect(last.searchParams.get('currencyFromId')).toBe('2');
      expect(last.searchParams.get('enabled')).toBe('false');
      expect(last.searchParams.get('page')).toBe('1');
    });
  });

  it('shows an empty state', async () => {
    server.use(...handlers([], []));
    renderApp('/fees', { user: ADMIN, loader: providersLoader() });
    expect(await screen.findByText('No fees match these filters.')).toBeInTheDocument();
  });

  it("offers the Current Merchant's collabs in the Collab filter (spec 01 §4)", async () => {
    server.use(...handlers());
    server.use(http.get(`${GATEWAY}/api/v1/merchant-collabs`, () => HttpResponse.json({ collabs: [...COLLABS, collab(5, 2, 1)] })));
    const { user } = renderApp('/fees', { user: { ...EDITOR, merchantIds: [1, 2] }, loader: providersLoader() });
    await table();
    const picker = screen.getByRole('combobox', { name: 'Collab' });
    const options = () => within(picker).getAllByRole('option').map((o) => [o.textContent, o.getAttribute('value')]);
    const fixed = [['All collabs', ''], ['Global (every collab)', '0']];
    await waitFor(() => expect(options()).toEqual([...fixed, ['GoVip', '1'], ['QRPh', '2']]));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Current Merchant' }), 'Blue Harbor Shop (2)');
    await waitFor(() => expect(options()).toEqual([...fixed, ['FbPay', '3'], ['GoVip', '5']]));
  });

  it('labels collabs that would read the same apart, with their merchant', async () => {
    server.use(...handlers());
    server.use(http.get(`${GATEWAY}/api/v1/merchant-collabs`, () => HttpResponse.json({ collabs: [...COLLABS, collab(5, 2, 1)] })));
    renderApp('/fees', { user: { username: 'no-shop', permissions: ['View Fees'], merchantIds: [] }, loader: providersLoader() });
    await table();
    const picker = screen.getByRole('combobox', { name: 'Collab' });
    await waitFor(() =>
      expect(within(picker).getAllByRole('option').map((o) => o.textContent)).toEqual([
        'All collabs',
        'Global (every collab)',
        'GoVip · Acme Games (1)',
        'QRPh',
        'FbPay',
        'RollingPay',
        'GoVip · Blue Harbor Shop (2)',
      ]),
    );
  });

  it('offers no editing without Edit Fees', async () => {
    server.use(...handlers());
    renderApp('/fees', { user: MERCHANT_USER, loader: providersLoader() });
    await within(await table()).findByText('10.00 – 500.00');
    expect(screen.queryByRole('button', { name: 'Add Fee' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Edit fee/ })).not.toBeInTheDocument();
  });

  it('lets a merchant editor change its collab fees but not the global ones', async () => {
    server.use(...handlers());
    renderApp('/fees', { user: EDITOR, loader: providersLoader() });
    await within(await table()).findByText('10.00 – 500.00');
    expect(within(row(2)).getByRole('button', { name: 'Edit fee 2' })).toBeInTheDocument();
    expect(within(row(1)).queryByRole('button', { name: 'Edit fee 1' })).not.toBeInTheDocument();
  });

  it("tells a user without View Fees 'You don't have permission to view this page.'", () => {
    session.signIn(tokensFor({ username: 'ms', roles: ['Merchant Support'], merchantIds: [1] }));
    render(
      <ChakraProvider value={defaultSystem}>
        <FeesPage />
      </ChakraProvider>,
    );
    expect(screen.getByText("You don't have permission to view this page.")).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('validates the new fee, shows the conflicts and the winner, and saves anyway with allowConflict', async () => {
    let posted: Record<string, unknown> | null = null;
    let checked: Record<string, unknown> | null = null;
    server.use(
      ...handlers(),
      http.post(`${FEES}/conflicts`, async ({ request }) => {
        checked = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ conflicts: [{ fee: OWN, winnerId: '2' }], winsAll: false });
      }),
      http.post(FEES, async ({ request }) => {
        posted = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json(fee(9, { amountMin: '100.00' }));
      }),
    );
    const { user } = renderApp('/fees?collabId=1', { user: ADMIN, loader: providersLoader() });
    await table();
    await user.click(screen.getByRole('button', { name: 'Add Fee' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Fee' });
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Currency from is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Currency to is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Value is required.')).toBeInTheDocument();
    expect(checked).toBeNull();

    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Currency from' }), 'PHP');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Currency to' }), 'PHP');
    await user.type(within(dialog).getByLabelText('Value (%)'), '150');
    await user.type(within(dialog).getByLabelText('Minimum amount'), '600');
    await user.type(within(dialog).getByLabelText('Maximum amount'), '100');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('A percentage must be at most 100.')).toBeInTheDocument();
    expect(within(dialog).getByText('The maximum amount must not be below the minimum amount.')).toBeInTheDocument();

    await user.clear(within(dialog).getByLabelText('Value (%)'));
    await user.type(within(dialog).getByLabelText('Value (%)'), '2');
    await user.clear(within(dialog).getByLabelText('Minimum amount'));
    await user.type(within(dialog).getByLabelText('Minimum amount'), '100');
    await user.clear(within(dialog).getByLabelText('Maximum amount'));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    const warning = await within(dialog).findByRole('alert', { name: 'Fee conflicts' });
    expect(warning).toHaveTextContent('This fee conflicts with 1 enabled fee.');
    expect(warning).toHaveTextContent('fee 2 wins');
    expect(checked).toMatchObject({ id: '0', fee: { collabId: 1, currencyFromId: 1, currencyToId: 1, feeType: 1, value: '2', amountMin: '100', amountMax: '', enabled: true } });
    expect(posted).toBeNull();

    await user.click(within(dialog).getByRole('button', { name: 'Save anyway' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add Fee' })).not.toBeInTheDocument());
    expect(posted).toMatchObject({ collabId: 1, allowConflict: true, value: '2' });
    expect(await screen.findByText('Fee created')).toBeInTheDocument();
  });

  it('edits a fee with its what-if preview and saves it without conflicts', async () => {
    let put: Record<string, unknown> | null = null;
    server.use(
      ...handlers(),
      http.post(`${FEES}/preview`, () =>
        HttpResponse.json({ currencies: [{ currency: 'PHP', transactionCount: '120', changedCount: '40', feeBefore: '180.00', feeAfter: '240.50' }] }),
      ),
      http.post(`${FEES}/conflicts`, () => HttpResponse.json({ conflicts: [], winsAll: true })),
      http.put(`${FEES}/2`, async ({ request }) => {
        put = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json(OWN);
      }),
    );
    const { user } = renderApp('/fees', { user: ADMIN, loader: providersLoader() });
    await within(await table()).findByText('10.00 – 500.00');
    await user.click(within(row(2)).getByRole('button', { name: 'Edit fee 2' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Fee 2' });
    expect(within(dialog).getByLabelText('Value (%)')).toHaveValue('1.5');
    await user.click(within(dialog).getByRole('button', { name: 'Preview impact' }));
    const impact = await within(dialog).findByRole('table', { name: 'Fee impact' });
    expect(within(impact).getByText('240.50')).toBeInTheDocument();
    expect(within(impact).getByText('120')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(put).toMatchObject({ collabId: 1, amountMin: '10.00', amountMax: '500.00', priority: 3, allowConflict: false }));
    expect(await screen.findByText('Fee updated')).toBeInTheDocument();
  });

  it('deletes a fee after confirmation', async () => {
    let deleted = false;
    server.use(
      ...handlers(),
      http.delete(`${FEES}/2`, () => {
        deleted = true;
        return HttpResponse.json({});
      }),
    );
    const { user } = renderApp('/fees', { user: ADMIN, loader: providersLoader() });
    await within(await table()).findByText('10.00 – 500.00');
    await user.click(within(row(2)).getByRole('button', { name: 'Delete fee 2' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(deleted).toBe(false);
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(deleted).toBe(true));
    expect(await screen.findByText('Fee deleted')).toBeInTheDocument();
  });
});
