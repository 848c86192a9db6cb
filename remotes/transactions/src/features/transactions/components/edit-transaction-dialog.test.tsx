import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import type { ValidationResultJson } from '@paygate/gen/gateway/v1/validation_pb';
import { listHandlers, transactionsLoader } from '../../../testing/fixtures';

const AWAITABLE: ValidationResultJson = { validationId: '31', validationUrl: 'https://acme.example/validate', status: -1, isAwaitable: true, responseCode: 200, message: 'blocked client', attempts: 1 };
const BACKGROUND: ValidationResultJson = { validationId: '32', validationUrl: 'https://acme.example/audit', status: 0, attempts: 2 };

async function openEdit(who: TestUser = ADMIN) {
  const view = renderApp('/transactions', { user: who, loader: transactionsLoader() });
  // The first render of a file loads the page's chunks: slow on a busy machine.
  const row = await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
  await view.user.click(within(row).getByRole('button', { name: 'Edit' }));
  const dialog = await screen.findByRole('dialog', { name: 'Edit transaction' });
  return { ...view, dialog };
}

describe('Edit transaction dialog: validation results and the callback queue (spec 02 §2, §4, §8)', () => {
  it('names results AVR-/VR- by awaitability and sets a status', async () => {
    let results = [AWAITABLE, BACKGROUND];
    const sent: string[] = [];
    let fail = true;
    server.use(
      // Before listHandlers: the first handler that matches answers.
      http.get(`${GATEWAY}/api/v1/transactions/:id/validation`, ({ params }) => HttpResponse.json(params.id === '11' ? results : [])),
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/validation/:id/status/:status`, ({ request, params }) => {
        sent.push(new URL(request.url).pathname);
        if (fail) return HttpResponse.json({ code: 'not_found', message: 'Validation result 31 was not found.' }, { status: 404 });
        results = results.map((r) => (r.validationId === params.id ? { ...r, status: Number(params.status) } : r));
        return HttpResponse.json(results.find((r) => r.validationId === params.id));
      }),
    );
    const { user, dialog } = await openEdit();
    const first = await within(dialog).findByTestId('validation-31');
    expect(within(first).getByText('AVR-31')).toBeInTheDocument();
    expect(within(first).getByText('blocked client')).toBeInTheDocument();
    expect(within(within(dialog).getByTestId('validation-32')).getByText('VR-32')).toBeInTheDocument();
    const status = within(first).getByRole('combobox', { name: 'Status of AVR-31' });
    expect(status).toHaveDisplayValue('Failed');
    expect(within(status).getAllByRole('option').map((o) => o.textContent)).toEqual(['Pending', 'Success', 'Failed']);

    await user.selectOptions(status, 'Success');
    expect(await screen.findByText('Failed to update validation status')).toBeInTheDocument();
    expect(screen.getByText('Validation result 31 was not found.')).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).getByRole('combobox', { name: 'Status of AVR-31' })).toHaveDisplayValue('Failed'));

    fail = false;
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Status of AVR-31' }), 'Success');
    expect(await screen.findByText('Validation status updated')).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).getByRole('combobox', { name: 'Status of AVR-31' })).toHaveDisplayValue('Success'));
    expect(sent).toEqual(['/api/v1/validation/31/status/1', '/api/v1/validation/31/status/1']);
  });

  it('retries a validation and reports a failed retry', async () => {
    const sent: string[] = [];
    let fail = true;
    server.use(
      http.get(`${GATEWAY}/api/v1/transactions/:id/validation`, () => HttpResponse.json([BACKGROUND])),
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/validation/:id/retry`, ({ request }) => {
        sent.push(new URL(request.url).pathname);
        if (fail) return HttpResponse.json({ code: 'unavailable', message: 'The endpoint did not answer.' }, { status: 503 });
        return HttpResponse.json({ ...BACKGROUND, status: 1, attempts: 3 });
      }),
    );
    const { user, dialog } = await openEdit();
    await user.click(await within(dialog).findByRole('button', { name: 'Retry VR-32' }));
    expect(await screen.findByText('Failed to retry validation')).toBeInTheDocument();
    expect(screen.getByText('The endpoint did not answer.')).toBeInTheDocument();
    fail = false;
    await user.click(within(dialog).getByRole('button', { name: 'Retry VR-32' }));
    expect(await screen.findByText('Validation retried')).toBeInTheDocument();
    expect(screen.getByText('VR-32: Success')).toBeInTheDocument();
    expect(sent).toEqual(['/api/v1/validation/32/retry', '/api/v1/validation/32/retry']);
  });

  it('shows the empty state when a transaction has no validation results', async () => {
    server.use(...listHandlers());
    const { dialog } = await openEdit();
    expect(await within(dialog).findByText('No active validation constraints')).toBeInTheDocument();
  });

  it('says when the validation results cannot be loaded', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/transactions/:id/validation`, () => HttpResponse.json({ code: 'internal', message: 'boom' }, { status: 500 })), ...listHandlers());
    await openEdit();
    await waitFor(() => expect(screen.getAllByText('Could not load validation results').length).toBe(2)); // the toast and the dialog's line
    expect(screen.queryByText('No active validation constraints')).toBeNull();
  });

  it('puts the transaction on the callback queue of the callbacks service', async () => {
    const sent: string[] = [];
    let fail = true;
    server.use(
      ...listHandlers(),
      http.post(`${GATEWAY}/api/v1/transactions/:id/callbacks/enqueue`, ({ request }) => {
        sent.push(new URL(request.url).pathname);
        if (fail) return HttpResponse.json({ code: 'failed_precondition', message: 'Transaction 11 is not final.' }, { status: 422 });
        return HttpResponse.json({ queued: 1 }, { status: 202 });
      }),
    );
    const { user, dialog } = await openEdit();
    const queues = within(dialog).getByRole('button', { name: 'Add to Transaction Queue' }).parentElement!;
    expect(within(queues).getByRole('button', { name: 'Add to Callback Queue' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Add to Callback Queue' }));
    expect(await screen.findByText('Queue Operation Failed')).toBeInTheDocument();
    expect(screen.getByText('Failed to add to callback queue: Transaction 11 is not final.')).toBeInTheDocument();
    fail = false;
    await user.click(within(dialog).getByRole('button', { name: 'Add to Callback Queue' }));
    expect(await screen.findByText('Transaction 11 added to the callback queue')).toBeInTheDocument();
    expect(sent).toEqual(['/api/v1/transactions/11/callbacks/enqueue', '/api/v1/transactions/11/callbacks/enqueue']);
  });

  it('offers Cancel Callbacks Sending by the rule of its call (Edit Transactions), not by another permission', async () => {
    server.use(...listHandlers());
    const { dialog } = await openEdit({ username: 'ops', roles: ['Support'], permissions: ['Get Transactions', 'Edit Transactions'], merchantIds: [1] });
    expect(await within(dialog).findByRole('button', { name: 'Cancel Callbacks Sending' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Commit State Change' })).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Add to Callback Queue' })).toBeInTheDocument();
  });
});
