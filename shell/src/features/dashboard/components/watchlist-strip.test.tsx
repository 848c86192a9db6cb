import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { GetStatisticsResponseJson } from '@paygate/gen/aggregator/v1/statistics_pb';
import type { WatchlistJson, WatchlistValueJson } from '@paygate/gen/gateway/v1/watchlists_pb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';

const EMPTY_STATS: GetStatisticsResponseJson = { total: '0', currency: 'USD' };

const WATCHLISTS: WatchlistJson[] = [
  {
    id: '7',
    name: 'Pending withdrawals',
    metric: 'count',
    windowMinutes: 15,
    query: 'transactionTypeFilter=2&transactionStatusesFilter=3',
    threshold: { comparison: 'above', value: '50' },
    crossed: false,
  },
  { id: '8', name: 'Deposits today', metric: 'sum', windowMinutes: 1440, viewId: '3' },
];

const VALUES: WatchlistValueJson[] = [
  { watchlistId: '7', metric: 'count', windowMinutes: 15, count: '12', crossed: false },
  { watchlistId: '8', metric: 'sum', windowMinutes: 1440, count: '2', sums: { PHP: '1500.50' } },
];

/** FakeEventSource stands for the browser's: the test dispatches the server's messages. */
class FakeEventSource extends EventTarget {
  static all: FakeEventSource[] = [];
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    super();
    FakeEventSource.all.push(this);
  }
  close() {}
}

function send(type: string, data: unknown) {
  for (const s of FakeEventSource.all) s.dispatchEvent(new MessageEvent(type, { data: JSON.stringify(data) }));
}

function handlers() {
  server.use(
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])),
    http.get(`${GATEWAY}/api/v1/statistics`, () => HttpResponse.json(EMPTY_STATS)),
    http.get(`${GATEWAY}/api/v1/watchlists`, () => HttpResponse.json({ watchlists: WATCHLISTS })),
    http.get(`${GATEWAY}/api/v1/watchlists/values`, () => HttpResponse.json({ values: VALUES })),
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
  FakeEventSource.all = [];
});

describe('Watchlist strip on the Dashboard (issue 29)', () => {
  it('shows each watchlist with its value, window and threshold, linking to its transactions', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    handlers();
    renderApp('/', { user: ADMIN });
    const strip = await screen.findByRole('region', { name: 'Watchlists' });
    const pending = await within(strip).findByRole('link', { name: 'Pending withdrawals: 12 in the last 15 min' });
    expect(pending).toHaveAttribute('href', '/transactions?transactionTypeFilter=2&transactionStatusesFilter=3');
    expect(within(pending).getByText('Alert when above 50')).toBeInTheDocument();
    const sums = within(strip).getByRole('link', { name: /^Deposits today: 1,500\.50 PHP in the last 24 h$/ });
    // A watchlist from a saved view opens the view.
    expect(sums).toHaveAttribute('href', '/transactions?view=3');
  });

  it('moves the counter on a live value and toasts an alert once, with a link', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    handlers();
    const { user, router } = renderApp('/', { user: ADMIN });
    const strip = await screen.findByRole('region', { name: 'Watchlists' });
    await within(strip).findByRole('link', { name: /Pending withdrawals: 12/ });
    await waitFor(() => expect(FakeEventSource.all.length).toBeGreaterThan(0));
    expect(FakeEventSource.all.length).toBe(1); // one connection for the strip and the toasts
    send('watchlist', { ...VALUES[0], count: '51', crossed: true });
    const moved = await within(strip).findByRole('link', { name: /Pending withdrawals: 51/ });
    expect(within(moved).getByText('Alert: above 50')).toBeInTheDocument();
    const alert = { id: '90', watchlistId: '7', watchlistName: 'Pending withdrawals', metric: 'count', comparison: 'above', threshold: '50', value: '51', windowMinutes: 15, query: WATCHLISTS[0]!.query };
    send('alert', alert);
    send('alert', alert);
    expect(await screen.findByText('Pending withdrawals: 51 is above 50 (last 15 min)')).toBeInTheDocument();
    expect(screen.getAllByText('Watchlist alert')).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Open' }));
    await waitFor(() => expect(router.state.location.search).toBe('?transactionTypeFilter=2&transactionStatusesFilter=3'));
  });

  it("edits a watchlist's window and threshold, keeping its filter, and unpins another after confirming", async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    handlers();
    const sent: { method: string; path: string; body: unknown }[] = [];
    server.use(
      http.put(`${GATEWAY}/api/v1/watchlists/:id`, async ({ request, params }) => {
        sent.push({ method: 'PUT', path: String(params.id), body: await request.json() });
        return HttpResponse.json({ watchlist: { ...WATCHLISTS[0], windowMinutes: 60 } });
      }),
      http.delete(`${GATEWAY}/api/v1/watchlists/:id`, ({ params }) => {
        sent.push({ method: 'DELETE', path: String(params.id), body: null });
        return HttpResponse.json({});
      }),
    );
    const { user } = renderApp('/', { user: ADMIN });
    const strip = await screen.findByRole('region', { name: 'Watchlists' });
    await user.click(await within(strip).findByRole('button', { name: 'Edit watchlist Pending withdrawals' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit watchlist' });
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Window' }), 'Last 1 hour');
    const threshold = within(dialog).getByRole('textbox', { name: /Threshold/ });
    await user.clear(threshold);
    await user.type(threshold, '12.5');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('A count threshold is a whole number.')).toBeInTheDocument();
    expect(sent).toEqual([]);
    await user.clear(threshold);
    await user.type(threshold, '60');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({
      method: 'PUT',
      path: '7',
      body: {
        name: 'Pending withdrawals',
        filter: {},
        query: 'transactionTypeFilter=2&transactionStatusesFilter=3',
        metric: 'count',
        windowMinutes: 60,
        threshold: { comparison: 'above', value: '60' },
      },
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit watchlist' })).toBeNull());

    await user.click(within(strip).getByRole('button', { name: 'Unpin watchlist Deposits today' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(confirm).toHaveTextContent('the alerts it raised stay in the history');
    await user.click(within(confirm).getByRole('button', { name: 'Unpin' }));
    await waitFor(() => expect(sent.map((c) => `${c.method} ${c.path}`)).toEqual(['PUT 7', 'DELETE 8']));
  });

  it('shows nothing when the user pinned no watchlist', async () => {
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])),
      http.get(`${GATEWAY}/api/v1/statistics`, () => HttpResponse.json(EMPTY_STATS)),
    );
    renderApp('/', { user: ADMIN });
    await screen.findByRole('heading', { name: 'Financial Dashboard' });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Watchlists' })).toBeNull());
  });
});
