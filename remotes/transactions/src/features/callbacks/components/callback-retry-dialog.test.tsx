import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { baseHandlers, transactionsLoader } from '../../../testing/fixtures';
import type { CallbackWire } from '../api/types';

const CB5: CallbackWire = { id: '5', collabId: 1, merchantId: 1, callbackUrl: 'https://acme.example/cb', isEnabled: true, maxAttempts: 3, addSignature: true, transactionTypeId: 1 };

const DRY = {
  matched: '12',
  wouldRetry: '10',
  skipped: [{ key: '0', reason: 'callbacksCancelled', count: '2' }],
  byMerchant: [{ key: '1', count: '12' }],
  byResponseCode: [
    { key: '500', count: '9' },
    { key: '0', count: '3' },
  ],
  sample: [{ deliveryId: '1', transactionId: '77', url: 'https://acme.example/cb', responseCode: 500 }],
  cap: '100000',
  overCap: false,
};

async function openOnCollab(name: string) {
  const bodies: { path: string; body: Record<string, unknown> }[] = [];
  server.use(
    ...baseHandlers(),
    http.get(`${GATEWAY}/api/v1/collabs/:id/callbacks`, () => HttpResponse.json([CB5])),
    http.post(`${GATEWAY}/api/v1/callback-retries/dry-run`, async ({ request }) => {
      bodies.push({ path: 'dry-run', body: (await request.json()) as Record<string, unknown> });
      return HttpResponse.json(DRY);
    }),
    http.post(`${GATEWAY}/api/v1/callback-retries`, async ({ request }) => {
      bodies.push({ path: 'start', body: (await request.json()) as Record<string, unknown> });
      return HttpResponse.json({ run: { id: '3', state: 'queued' } });
    }),
  );
  const view = renderApp('/callbacks', { user: ADMIN, loader: transactionsLoader() });
  const select = await screen.findByRole('combobox', { name: 'Select Collab' }, { timeout: 15_000 });
  await waitFor(() => expect(within(select).getByRole('option', { name: 'Acme Games - GoVip' })).toBeInTheDocument());
  await view.user.selectOptions(select, 'Acme Games - GoVip');
  await screen.findByTestId('callback-5');
  await view.user.click(screen.getByRole('button', { name }));
  return { ...view, bodies };
}

describe('Bulk retries of failed callbacks', () => {
  it('Retry failed…: dry run of the collab by response code, then a run with a reason and the confirmed count', async () => {
    const { user, bodies } = await openOnCollab('Retry failed…');
    const dialog = await screen.findByRole('dialog', { name: 'Retry failed callbacks' });
    await user.type(within(dialog).getByRole('textbox', { name: 'Response code' }), '500');
    await user.click(within(dialog).getByRole('button', { name: 'Dry run' }));
    expect(await within(dialog).findByRole('status')).toHaveTextContent('The filter selects 12 failed deliveries; a run would send 10 again.');
    expect(within(dialog).getByRole('region', { name: 'Skipped' })).toHaveTextContent('Callbacks cancelled: 2');
    expect(within(dialog).getByRole('table', { name: 'By response code' })).toHaveTextContent('No answer');
    expect(bodies[0]).toEqual({ path: 'dry-run', body: { filter: { collabId: 1, responseCode: 500 } } });
    const run = within(dialog).getByRole('button', { name: 'Retry 10 deliveries' });
    expect(run).toBeDisabled();
    await user.type(within(dialog).getByRole('textbox', { name: /Reason/ }), 'receiver fixed');
    await user.click(run);
    await waitFor(() => expect(bodies[1]).toEqual({ path: 'start', body: { filter: { collabId: 1, responseCode: 500 }, reason: 'receiver fixed', expectedCount: 10 } }));
    expect(await within(dialog).findByText(/Run 3 is queued/)).toBeInTheDocument();
  });

  it('Recover since…: needs the time, and can name one callback URL', async () => {
    const { user, bodies } = await openOnCollab('Recover since…');
    const dialog = await screen.findByRole('dialog', { name: 'Recover failed callbacks since…' });
    expect(within(dialog).getByRole('button', { name: 'Dry run' })).toBeDisabled();
    const since = within(dialog).getByLabelText(/Failed since/);
    await user.type(since, '2026-12-01T10:00');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Callback URL' }), 'https://acme.example/cb');
    await user.click(within(dialog).getByRole('button', { name: 'Dry run' }));
    await within(dialog).findByRole('status');
    expect(bodies[0]?.body).toEqual({ filter: { collabId: 1, callbackUrlId: 5, from: new Date('2026-12-01T10:00').toISOString() } });
  });
});
