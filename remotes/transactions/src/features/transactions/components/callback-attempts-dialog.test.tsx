import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import type { CallbackAttemptJson } from '@paygate/gen/callbacks/v1/callbacks_pb';
import { listHandlers, runRowAction, transactionsLoader } from '../../../testing/fixtures';

/** attempt builds attempt n (ids 100 + n), newest first as the service answers. */
function attempt(n: number, over: Partial<CallbackAttemptJson> = {}): CallbackAttemptJson {
  return {
    id: String(100 + n),
    createdUtc: '2026-11-21T10:00:00Z',
    callbackUrl: 'https://acme.example/cb',
    requestBody: '{"type":"transaction.finalized"}',
    responseCode: 500,
    callbackAttemptStatus: 'Failed',
    webhookId: 'msg_1',
    attemptNumber: n,
    errorMessage: 'receiver answered 500',
    ...over,
  };
}

async function openAttempts(user: TestUser = ADMIN) {
  const view = renderApp('/transactions', { user, loader: transactionsLoader() });
  // The first render of a file loads the page's chunks: slow on a busy machine.
  await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
  await runRowAction(view.user, 11, 'Callbacks');
  const dialog = await screen.findByRole('dialog', { name: 'Callback Attempts - 11' });
  return { ...view, dialog };
}

describe('Callback Attempts dialog (spec 02 §2, §8, §9)', () => {
  it('fetches page 1 of 100 and shows 10 rows a page', async () => {
    let seen: URL | undefined;
    const list = Array.from({ length: 12 }, (_, i) => attempt(12 - i, { callbackAttemptStatus: 'Success', responseCode: 200, errorMessage: '' }));
    server.use(
      ...listHandlers(),
      http.get(`${GATEWAY}/api/v1/transactions/:id/callbacks/attempts`, ({ request }) => {
        seen = new URL(request.url);
        return HttpResponse.json({ callbackAttempts: list, totalCount: '12', currentPage: 1, totalPages: 1 });
      }),
    );
    const { user, dialog } = await openAttempts();
    const table = await within(dialog).findByRole('table', { name: 'Callback attempts' });
    expect(seen?.pathname).toBe('/api/v1/transactions/11/callbacks/attempts');
    expect(seen?.searchParams.get('page')).toBe('1');
    expect(seen?.searchParams.get('take')).toBe('100');
    expect(within(table).getAllByRole('row')).toHaveLength(11); // header + 10
    expect(within(dialog).getByText('Page 1 of 2')).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: 'Retry' })).toBeNull();
    await user.click(within(dialog).getByRole('button', { name: 'Next' }));
    expect(within(dialog).getByText('Page 2 of 2')).toBeInTheDocument();
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(within(dialog).getByTestId('attempt-101')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Show request body of attempt 101' }));
    expect(within(dialog).getByLabelText('Request body of attempt 101')).toHaveTextContent('"type": "transaction.finalized"');
  });

  it('retries a failed attempt on the callbacks service and then reads "Request sent"', async () => {
    const retried: string[] = [];
    let fail = true;
    server.use(
      ...listHandlers(),
      http.get(`${GATEWAY}/api/v1/transactions/:id/callbacks/attempts`, () =>
        HttpResponse.json({ callbackAttempts: [attempt(3), attempt(2, { callbackAttemptStatus: 'Retried' }), attempt(1)], totalCount: '3', currentPage: 1, totalPages: 1 }),
      ),
      http.post(`${GATEWAY}/api/v1/callbacks/attempts/:id/retry`, ({ request }) => {
        retried.push(new URL(request.url).pathname);
        if (fail) return HttpResponse.json({ code: 'failed_precondition', message: 'Callback sending is cancelled for this transaction.' }, { status: 422 });
        return HttpResponse.json({ attempt: attempt(3, { callbackAttemptStatus: 'Retried' }) }, { status: 202 });
      }),
    );
    const { user, dialog } = await openAttempts();
    const newest = await within(dialog).findByTestId('attempt-103');
    // An attempt already retried shows the text instead of the button.
    expect(within(within(dialog).getByTestId('attempt-102')).getByText('Request sent')).toBeInTheDocument();
    expect(within(within(dialog).getByTestId('attempt-102')).queryByRole('button', { name: 'Retry' })).toBeNull();

    await user.click(within(newest).getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Failed to add callback to the retry queue: Callback sending is cancelled for this transaction.')).toBeInTheDocument();
    expect(within(newest).getByRole('button', { name: 'Retry' })).toBeInTheDocument();

    fail = false;
    await user.click(within(newest).getByRole('button', { name: 'Retry' }));
    expect(await within(newest).findByText('Request sent')).toBeInTheDocument();
    expect(within(newest).queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(within(within(dialog).getByTestId('attempt-101')).getByRole('button', { name: 'Retry' })).toBeInTheDocument();
    expect(retried).toEqual(['/api/v1/callbacks/attempts/103/retry', '/api/v1/callbacks/attempts/103/retry']);
  });

  it('offers no retry to a user without Edit Transactions', async () => {
    server.use(
      ...listHandlers(),
      http.get(`${GATEWAY}/api/v1/transactions/:id/callbacks/attempts`, () => HttpResponse.json({ callbackAttempts: [attempt(1)], totalCount: '1' })),
    );
    const { dialog } = await openAttempts(MERCHANT_USER);
    const row = await within(dialog).findByTestId('attempt-101');
    expect(within(row).getByText('Failed')).toBeInTheDocument();
    expect(within(row).queryByRole('button', { name: 'Retry' })).toBeNull();
  });

  it('shows the empty state', async () => {
    server.use(...listHandlers(), http.get(`${GATEWAY}/api/v1/transactions/:id/callbacks/attempts`, () => HttpResponse.json({ totalCount: '0', currentPage: 1 })));
    const { dialog } = await openAttempts();
    expect(await within(dialog).findByText('No callbacks to be displayed')).toBeInTheDocument();
  });

  it('reports a failed fetch and fetches again on Retry', async () => {
    let fail = true;
    server.use(
      ...listHandlers(),
      http.get(`${GATEWAY}/api/v1/transactions/:id/callbacks/attempts`, () =>
        fail ? HttpResponse.json({ code: 'unavailable', message: 'The callbacks service is unavailable.' }, { status: 503 }) : HttpResponse.json({ callbackAttempts: [attempt(1)] }),
      ),
    );
    const { user, dialog } = await openAttempts();
    const text = 'Failed to fetch callback attempts: The callbacks service is unavailable.';
    await waitFor(() => expect(screen.getAllByText(text).length).toBe(2)); // the toast and the dialog's alert
    fail = false;
    await user.click(within(dialog).getByRole('button', { name: 'Retry' }));
    expect(await within(dialog).findByTestId('attempt-101')).toBeInTheDocument();
  });
});
