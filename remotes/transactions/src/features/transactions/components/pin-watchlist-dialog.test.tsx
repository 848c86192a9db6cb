import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { listHandlers, transactionsLoader } from '../../../testing/fixtures';

function pinHandler(bodies: unknown[]) {
  return http.post(`${GATEWAY}/api/v1/watchlists`, async ({ request }) => {
    const body = (await request.json()) as Record<string, unknown>;
    bodies.push(body);
    return HttpResponse.json({ watchlist: { id: '5', ...body } });
  });
}

describe('Pin as watchlist (issue 29)', () => {
  it("pins the page's filters (not its date range) with a metric, a window and a threshold", async () => {
    const bodies: unknown[] = [];
    server.use(...listHandlers(), pinHandler(bodies));
    const { user } = renderApp('/transactions?selectedCollabId=1&transactionTypeFilter=2&transactionStatusesFilter=3,4&dateRange=2026-11-20T00:00:00.000Z,2026-11-21T23:59:59.999Z', {
      user: ADMIN,
      loader: transactionsLoader(),
    });
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    await user.click(screen.getByRole('button', { name: 'Pin as watchlist' }));
    const dialog = await screen.findByRole('dialog', { name: 'Pin as watchlist' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Pending withdrawals');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Window' }), '60');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Alert me when it crosses a threshold' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Threshold' }), '50');
    await user.click(within(dialog).getByRole('button', { name: 'Pin' }));
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]).toEqual({
      name: 'Pending withdrawals',
      metric: 'count',
      windowMinutes: 60,
      filter: { collabId: 1, type: 2, statuses: ['3', '4'] },
      query: 'selectedCollabId=1&transactionTypeFilter=2&transactionStatusesFilter=3%2C4',
      threshold: { comparison: 'above', value: '50' },
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Pin as watchlist' })).toBeNull());
  });

  it('asks for a name and a currency for a sum threshold before sending anything', async () => {
    const bodies: unknown[] = [];
    server.use(...listHandlers(), pinHandler(bodies));
    const { user } = renderApp('/transactions', { user: ADMIN, loader: transactionsLoader() });
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    await user.click(screen.getByRole('button', { name: 'Pin as watchlist' }));
    const dialog = await screen.findByRole('dialog', { name: 'Pin as watchlist' });
    await user.click(within(dialog).getByRole('checkbox', { name: 'Alert me when it crosses a threshold' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Threshold' }), '1.5');
    await user.click(within(dialog).getByRole('button', { name: 'Pin' }));
    expect(await within(dialog).findByText('Name is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('A count threshold is a whole number.')).toBeInTheDocument();
    expect(bodies).toHaveLength(0);
  });

  it('says what the server refused', async () => {
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/watchlists`, () =>
        HttpResponse.json({ code: 'conflict', message: 'You have 20 watchlists, the most one user may pin: delete one first.' }, { status: 409 }),
      ),
    );
    const { user } = renderApp('/transactions', { user: ADMIN, loader: transactionsLoader() });
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    await user.click(screen.getByRole('button', { name: 'Pin as watchlist' }));
    const dialog = await screen.findByRole('dialog', { name: 'Pin as watchlist' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'One more');
    await user.click(within(dialog).getByRole('button', { name: 'Pin' }));
    expect(await screen.findByText('You have 20 watchlists, the most one user may pin: delete one first.')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Pin as watchlist' })).toBeInTheDocument();
  });
});
