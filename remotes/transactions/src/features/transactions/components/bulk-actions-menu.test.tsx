import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import type { UserEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { listHandlers, transactionsLoader } from '../../../testing/fixtures';

const dryRun = {
  action: 'markFailed',
  matched: '155',
  wouldApply: '150',
  skipped: [{ key: 0, reason: 'final', count: '5' }],
  byStatus: [
    { key: 3, reason: '', count: '150' },
    { key: -2, reason: '', count: '5' },
  ],
  byCollab: [{ key: 7, reason: '', count: '155' }],
  sample: [{ id: '11' }, { id: '12' }],
  cap: '100000',
  overCap: false,
};

/** chooseAction opens the Bulk actions menu and picks an item, pressing and releasing as a hand does (see runRowAction). */
async function chooseAction(user: UserEvent, name: string) {
  await user.click(screen.getByRole('button', { name: 'Bulk actions' }));
  const item = await screen.findByRole('menuitem', { name }, { timeout: 5_000 });
  await user.pointer({ keys: '[MouseLeft>]', target: item });
  await user.pointer({ keys: '[/MouseLeft]', target: item });
}

describe('Bulk actions on the whole filter', () => {
  it('shows the dry run, asks a reason, starts the run with the confirmed count and links to its progress', async () => {
    let started: Record<string, unknown> | undefined;
    let dryBody: Record<string, unknown> | undefined;
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/bulk-actions/dry-run`, async ({ request }) => {
        dryBody = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json(dryRun);
      }),
      http.post(`${GATEWAY}/api/v1/bulk-actions`, async ({ request }) => {
        started = (await request.json()) as Record<string, unknown>;
        return HttpResponse.json({ run: { id: '42', state: 'queued' } });
      }),
    );
    const view = renderApp('/transactions', { user: ADMIN, loader: transactionsLoader() });
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    await chooseAction(view.user, 'Mark failed…');
    const dialog = await screen.findByRole('dialog', { name: 'Bulk action: Mark failed' }, { timeout: 5_000 });
    expect(await within(dialog).findByRole('status')).toHaveTextContent('The filter selects 155 transactions; the action would change 150.');
    expect(within(dialog).getByRole('region', { name: 'Skipped' })).toHaveTextContent('Final already5');
    expect(dryBody?.action).toBe('markFailed');
    expect(dryBody?.filter).not.toHaveProperty('page');
    const runButton = within(dialog).getByRole('button', { name: 'Run on 150 transactions' });
    expect(runButton).toBeDisabled();
    await view.user.type(within(dialog).getByRole('textbox', { name: /Reason/ }), 'stuck at the provider');
    await view.user.click(runButton);
    await waitFor(() => expect(started).toMatchObject({ action: 'markFailed', reason: 'stuck at the provider', expectedCount: 150 }));
    expect(await within(dialog).findByRole('link', { name: 'Jobs page' })).toHaveAttribute('href', '/jobs');
  });

  it('refuses to run a set over the cap', async () => {
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/bulk-actions/dry-run`, () => HttpResponse.json({ ...dryRun, cap: '100', overCap: true })),
    );
    const view = renderApp('/transactions', { user: ADMIN, loader: transactionsLoader() });
    await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
    await chooseAction(view.user, 'Mark failed…');
    const dialog = await screen.findByRole('dialog', { name: 'Bulk action: Mark failed' }, { timeout: 5_000 });
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('more than the cap of 100');
    await view.user.type(within(dialog).getByRole('textbox', { name: /Reason/ }), 'x');
    expect(within(dialog).getByRole('button', { name: 'Run on 150 transactions' })).toBeDisabled();
  });
});
