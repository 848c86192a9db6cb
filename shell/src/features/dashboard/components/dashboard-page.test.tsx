import { screen, waitFor, within } from '@testing-library/react';
import axe from 'axe-core';
import { http, HttpResponse } from 'msw';
import type { GetStatisticsResponseJson } from '@paygate/gen/aggregator/v1/statistics_pb';
import { dashboardAutoRefresh, selectedMerchant, selectedTimezone } from '@paygate/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, type TestUser } from '@paygate/devkit/testing/tokens';

const STATS: GetStatisticsResponseJson = {
  total: '100',
  successful: '80',
  failed: '15',
  pending: '3',
  refunded: '0',
  validationFailed: '0',
  pspError: '0',
  cancelled: '2',
  notConfirmed: '0',
  byProvider: [
    { providerId: 1, providerName: 'GoVip', count: '30', successful: '25' },
    { providerId: 2, providerName: 'QRPh', count: '70', successful: '55' },
  ],
  byMerchant: [{ merchantId: 1, merchantName: 'Acme Games', count: '100', successful: '80' }],
  cashInData: { amount: '1000.10', count: '50', days: [{ start: '2025-03-10T00:00:00Z', amount: '1000.10', count: '50' }] },
  cashOutData: { amount: '999.99', count: '30', days: [{ start: '2025-03-10T00:00:00Z', amount: '999.99', count: '30' }] },
  cashInDataByMerchant: [{ merchantId: 1, merchantName: 'Acme Games', amount: '1000.10', count: '50' }],
  cashOutDataByMerchant: [{ merchantId: 2, merchantName: 'Blue Harbor Shop', amount: '999.99', count: '30' }],
  currency: 'USD',
  unconverted: [{ currency: 'EUR', transactionType: 1, amount: '12.5', count: '2' }],
  asOf: '2025-03-10T20:00:00Z',
};

/** statistics answers the statistics call (with `answer` in order, the last one repeating) and records each call. */
function statistics(...answers: (GetStatisticsResponseJson | number)[]) {
  const calls: URL[] = [];
  server.use(
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([{ id: 1, name: 'Acme Games', hash: 'h1' }])),
    http.get(`${GATEWAY}/api/v1/statistics`, ({ request }) => {
      calls.push(new URL(request.url));
      const a = answers[Math.min(calls.length, answers.length) - 1] ?? STATS;
      return typeof a === 'number' ? HttpResponse.json({ code: 'internal', message: 'boom' }, { status: a }) : HttpResponse.json(a);
    }),
  );
  return calls;
}

function renderDashboard(user: TestUser = ADMIN) {
  return renderApp('/', { user });
}

function card(label: string) {
  const item = screen
    .getAllByText(label)
    .map((el) => el.closest('[role="listitem"]'))
    .find((el): el is HTMLElement => el !== null);
  if (!item) throw new Error(`no card ${label}`);
  return item;
}

describe('Financial Dashboard (spec 01 §2)', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the cards, derived figures, provider table and per-merchant tabs to an admin', async () => {
    const calls = statistics(STATS);
    const { user } = renderDashboard();
    expect(await screen.findByRole('heading', { name: 'Financial Dashboard' })).toBeInTheDocument();
    await waitFor(() => expect(within(card('Total')).getByText('100')).toBeInTheDocument());
    await waitFor(() => expect(document.title).toBe('Paygate - Financial Dashboard'));
    expect(within(card('Successful')).getByText('80')).toBeInTheDocument();
    expect(within(card('Rolled Back')).getByText('0')).toBeInTheDocument();
    expect(within(card('Not Confirmed')).getByText('0')).toBeInTheDocument();
    expect(within(card('Success Rate')).getByText('80.00%')).toBeInTheDocument();
    expect(within(card('Net Cash Flow')).getByText('0.11 USD')).toBeInTheDocument();
    expect(within(card('Total Volume')).getByText('2,000.09 USD')).toBeInTheDocument();

    // The call: USD, today in the console's timezone (UTC by default), every merchant.
    const q = calls[0]!;
    expect(q.searchParams.get('currency')).toBe('USD');
    expect(q.searchParams.get('from')).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/);
    expect(q.searchParams.get('to')).toMatch(/^\d{4}-\d{2}-\d{2}T23:59:59\.999Z$/);
    expect(q.searchParams.get('to')!.slice(0, 10)).toBe(q.searchParams.get('from')!.slice(0, 10));
    expect(q.searchParams.has('merchantId')).toBe(false);

    // Providers, most first, with their share of the total.
    const rows = within(screen.getByRole('table', { name: 'Transactions by provider' })).getAllByRole('row');
    expect(rows.map((r) => within(r).queryAllByRole('cell').map((c) => c.textContent))).toEqual([[], ['QRPh', '70', '70.00%'], ['GoVip', '30', '30.00%']]);

    // The doughnut's legend: Cancelled (2%) is not drawn but listed.
    expect(within(screen.getByRole('list', { name: 'Statuses under 3%' })).getByText(/Cancelled: 2 \(2\.00%\)/)).toBeInTheDocument();
    expect(screen.getByRole('img', { name: /Transaction status: Successful 80/ })).toBeInTheDocument();

    // Amounts without a rate are said, not dropped.
    expect(screen.getByText('Cash in: 12.50 EUR (2 transactions)')).toBeInTheDocument();

    // Admin tabs: Cash In and Cash Out per merchant.
    expect(screen.getByRole('table', { name: 'Cash In per merchant' })).toHaveTextContent('Acme Games (1)');
    await user.click(screen.getByRole('tab', { name: 'Cash Out' }));
    const cashOut = await screen.findByRole('table', { name: 'Cash Out per merchant' });
    expect(within(cashOut).getByRole('cell', { name: 'Blue Harbor Shop (2)' })).toBeInTheDocument();
    expect(within(cashOut).getByRole('cell', { name: '999.99 USD' })).toBeInTheDocument();
  });

  it('gives a merchant user its Current Merchant and no per-merchant tabs', async () => {
    selectedMerchant.set(1);
    const calls = statistics({ ...STATS, byMerchant: [], cashInDataByMerchant: [], cashOutDataByMerchant: [] });
    renderDashboard(MERCHANT_USER);
    await waitFor(() => expect(within(card('Total')).getByText('100')).toBeInTheDocument());
    expect(calls[0]!.searchParams.get('merchantId')).toBe('1');
    expect(screen.queryByRole('tab', { name: 'Cash In' })).toBeNull();
    expect(screen.queryByRole('tab', { name: 'Cash Out' })).toBeNull();
  });

  it('asks for the chosen range in the selected timezone', async () => {
    selectedTimezone.set('Etc/GMT-8');
    const calls = statistics(STATS);
    const { user } = renderDashboard();
    await waitFor(() => expect(calls).toHaveLength(1));
    expect(calls[0]!.searchParams.get('from')).toMatch(/T00:00:00\.000\+08:00$/);
    await user.selectOptions(screen.getByRole('combobox', { name: 'Time range' }), 'Last Week');
    await waitFor(() => expect(calls).toHaveLength(2));
    const from = Date.parse(calls[1]!.searchParams.get('from')!);
    const to = Date.parse(calls[1]!.searchParams.get('to')!);
    expect(calls[1]!.searchParams.get('to')).toMatch(/T23:59:59\.999\+08:00$/);
    expect(to + 1 - from).toBe(7 * 86_400_000);
  });

  it('passes the WCAG 2 A/AA rules axe can check without layout: definition lists, the doughnut\'s text alternative', async () => {
    statistics(STATS);
    renderDashboard();
    await waitFor(() => expect(within(card('Total')).getByText('100')).toBeInTheDocument());
    // The doughnut is drawn (an SVG) inside one image named by the figures it shows; no image is unnamed.
    const doughnut = screen.getByRole('img', { name: /^Transaction status: Successful 80 \(80\.00%\)/ });
    expect(doughnut.querySelector('svg')).not.toBeNull();
    expect(screen.queryAllByRole('img', { name: '' })).toEqual([]);
    // Contrast needs a layout jsdom has not got: e2e/a11y.spec.ts checks it in a browser.
    const result = await axe.run(document.body, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] },
      rules: { 'color-contrast': { enabled: false } },
      resultTypes: ['violations'],
    });
    expect(result.violations.map((v) => `${v.id} ×${v.nodes.length}: ${v.nodes[0]?.html.slice(0, 120)}`)).toEqual([]);
  });

  it("says 'No Data' when there is no transaction", async () => {
    statistics({ total: '0', currency: 'USD' });
    renderDashboard();
    expect(await screen.findByText('No transactions in this range.')).toBeInTheDocument();
    expect(screen.getAllByText('No Data').length).toBeGreaterThan(0);
    expect(within(card('Success Rate')).getByText('0.00%')).toBeInTheDocument();
    expect(within(card('Net Cash Flow')).getByText('0.00 USD')).toBeInTheDocument();
  });

  it("toasts 'Data Updated' on a manual refresh, and 'Error' when the figures cannot be fetched", async () => {
    const calls = statistics(STATS, STATS, 500);
    const { user } = renderDashboard();
    await waitFor(() => expect(within(card('Total')).getByText('100')).toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Data Updated')).toBeInTheDocument();
    expect(screen.getByText('Dashboard data has been refreshed')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Refresh' })).toBeEnabled());
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Failed to fetch dashboard data', { selector: '[data-part="description"]' })).toBeInTheDocument();
    expect(screen.getByText('Error')).toBeInTheDocument();
    expect(calls).toHaveLength(3);
  });

  it('toasts the failure of the first load', async () => {
    statistics(500);
    renderDashboard();
    expect(await screen.findByText('Failed to fetch dashboard data', { selector: '[data-part="description"]' })).toBeInTheDocument();
  });

  describe('auto-refresh', () => {
    class FakeEventSource extends EventTarget {
      static last: FakeEventSource | null = null;
      onopen: (() => void) | null = null;
      onerror: (() => void) | null = null;
      constructor(readonly url: string) {
        super();
        FakeEventSource.last = this;
        queueMicrotask(() => this.onopen?.());
      }
      close() {}
    }

    it('is off by default and remembered when switched on', async () => {
      vi.stubGlobal('EventSource', FakeEventSource);
      FakeEventSource.last = null;
      statistics(STATS);
      const { user } = renderDashboard();
      const toggle = await screen.findByRole('checkbox', { name: 'Auto-refresh' });
      expect(toggle).not.toBeChecked();
      expect(FakeEventSource.last).toBeNull();
      await user.click(toggle);
      expect(dashboardAutoRefresh.get()).toBe(true);
      await waitFor(() => expect(FakeEventSource.last?.url).toContain('/api/v1/transactions/stream?access_token='));
    });

    it('refetches, silently, after a transaction event', async () => {
      vi.stubGlobal('EventSource', FakeEventSource);
      dashboardAutoRefresh.set(true);
      const calls = statistics(STATS, { ...STATS, total: '101', successful: '81' });
      renderDashboard();
      await waitFor(() => expect(within(card('Total')).getByText('100')).toBeInTheDocument());
      expect(await screen.findByText(/Live/)).toBeInTheDocument();
      FakeEventSource.last!.dispatchEvent(new MessageEvent('transaction', { data: '{"id":"1"}' }));
      FakeEventSource.last!.dispatchEvent(new MessageEvent('transaction', { data: '{"id":"2"}' }));
      // Coalesced: one refetch about 3 s later.
      await waitFor(() => expect(within(card('Total')).getByText('101')).toBeInTheDocument(), { timeout: 6_000 });
      expect(calls).toHaveLength(2);
      expect(screen.queryByText('Data Updated')).toBeNull();
    });
  });
});
