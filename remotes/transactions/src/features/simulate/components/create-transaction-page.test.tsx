import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { locationOf, renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { listHandlers, transactionsLoader } from '../../../testing/fixtures';

function renderPage() {
  return renderApp('/simulate-payment', { user: ADMIN, loader: transactionsLoader() });
}

async function fillRequired(user: ReturnType<typeof renderPage>['user']) {
  await waitFor(() => expect(screen.getByRole('option', { name: 'GoVip' })).toBeInTheDocument());
  await user.selectOptions(screen.getByRole('combobox', { name: 'Provider' }), 'GoVip');
  await user.selectOptions(screen.getByRole('combobox', { name: 'Pay Type' }), 'GCash');
  await waitFor(() => expect(screen.getByRole('option', { name: 'Acme Games' })).toBeInTheDocument());
  await user.selectOptions(screen.getByRole('combobox', { name: 'Merchant' }), 'Acme Games');
}

describe('Create Transaction page (spec 02 §2, §3, §5)', () => {
  it('has the defaults and the title Paygate - Create Transaction', async () => {
    server.use(...listHandlers());
    renderPage();
    expect(await screen.findByRole('heading', { name: 'Create Transaction' })).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Amount' })).toHaveValue('201.99');
    expect(screen.getByRole('textbox', { name: 'Currency' })).toHaveValue('PHP');
    expect((screen.getByRole('textbox', { name: 'Nonce' }) as HTMLInputElement).value).toMatch(/^test_\d+$/);
    await waitFor(() => expect(document.title).toBe('Paygate - Create Transaction'));
  });

  it('refuses invalid Additional Data JSON without calling the server', async () => {
    let calls = 0;
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/transactions/initialize`, () => {
        calls++;
        return HttpResponse.json({});
      }),
    );
    const { user } = renderPage();
    await fillRequired(user);
    const data = screen.getByRole('textbox', { name: 'Additional Data' });
    await user.clear(data);
    await user.type(data, '{{not json');
    await user.click(screen.getByRole('button', { name: 'Create Transaction' }));
    expect(await screen.findByText('Invalid JSON format in Additional Data field')).toBeInTheDocument();
    expect(calls).toBe(0);
  });

  it('sends the payload with split tags, shows processing, then the reference with a link to the transaction', async () => {
    let body: unknown;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/transactions/initialize`, async ({ request }) => {
        body = await request.json();
        await gate;
        return HttpResponse.json({ transactionReferenceId: 'PG-REF-1', id: '77', transactionStatus: 4 });
      }),
    );
    const { user, router } = renderPage();
    await fillRequired(user);
    // Pasted rather than typed key by key: the same input events, a fraction of the time on a busy CI machine.
    await user.click(screen.getByRole('textbox', { name: 'Provider Tags' }));
    await user.paste(' vip ; sandbox:outcome=failed,, x ');
    await user.click(screen.getByRole('textbox', { name: 'Client ID' }));
    await user.paste('player-1');
    const data = screen.getByRole('textbox', { name: 'Additional Data' });
    await user.clear(data);
    await user.paste('{"k":"v"}');
    await user.click(screen.getByRole('button', { name: 'Create Transaction' }));
    expect(await screen.findByText('Processing...')).toBeInTheDocument();
    release();
    const done = await screen.findByRole('status', { name: 'Transaction created' });
    expect(within(done).getByText('PG-REF-1')).toBeInTheDocument();
    expect(body).toMatchObject({
      paymentData: { amount: '201.99', currency: 'PHP', providerId: 1, payType: 'GCASH', providerTags: ['vip', 'sandbox:outcome=failed', 'x'] },
      merchantData: { merchantHash: 'hash-acme', clientId: 'player-1', additionalData: { k: 'v' } },
      cashIn: true,
    });
    await user.click(within(done).getByRole('link', { name: 'View transaction 77' }));
    await waitFor(() => expect(locationOf(router)).toBe('/transactions/77'));
  });

  it("shows the server's message, or 'An unknown error occurred' without one", async () => {
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/transactions/initialize`, () => HttpResponse.json({ code: 'failed_precondition', message: 'Amount is above the limit' }, { status: 422 }), { once: true }),
      http.post(`${GATEWAY}/api/v1/transactions/initialize`, () => new HttpResponse('boom', { status: 500 })),
    );
    const { user } = renderPage();
    await fillRequired(user);
    await user.click(screen.getByRole('button', { name: 'Create Transaction' }));
    expect(await screen.findByText('Amount is above the limit')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New Transaction' }));
    await user.click(screen.getByRole('button', { name: 'Create Transaction' }));
    expect(await screen.findByText('An unknown error occurred')).toBeInTheDocument();
  });
});
