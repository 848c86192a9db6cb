import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { baseHandlers, MERCHANT_ADMIN, READ_ONLY_MERCHANT_ADMIN, transactionsLoader } from '../../../testing/fixtures';
import type { CallbackWire } from '../api/types';
import { DELETE_CONFIRMATION, UPDATE_CONFIRMATION } from './callbacks-page';

const CB5: CallbackWire = { id: '5', collabId: 1, merchantId: 1, callbackUrl: 'https://acme.example/cb', isEnabled: true, maxAttempts: 3, addSignature: true, transactionTypeId: 1 };
const CB6: CallbackWire = { id: '6', collabId: 1, merchantId: 1, callbackUrl: 'https://acme.example/all', maxAttempts: 12, transactionTypeId: null };

/** Requests the handlers saw. */
interface Calls {
  lists: string[];
  bodies: { method: string; path: string; body: unknown }[];
}

function handlers(calls: Calls, list: CallbackWire[] = [CB5, CB6]) {
  return [
    ...baseHandlers(),
    http.get(`${GATEWAY}/api/v1/collabs/:id/callbacks`, ({ request }) => {
      calls.lists.push(new URL(request.url).pathname);
      return HttpResponse.json(list);
    }),
    http.get(`${GATEWAY}/api/v1/merchants/:id/callbacks`, ({ request }) => {
      calls.lists.push(new URL(request.url).pathname);
      return HttpResponse.json(list);
    }),
  ];
}

function renderPage(user: TestUser = ADMIN) {
  return renderApp('/callbacks', { user, loader: transactionsLoader() });
}

type User = ReturnType<typeof renderPage>['user'];

/** fill puts text in a field at once (typing each character is slow and proves nothing more here). */
async function fill(user: User, field: HTMLElement, text: string) {
  await user.clear(field);
  if (text) {
    await user.click(field);
    await user.paste(text);
  }
}

async function chooseCollab(user: User) {
  const select = await screen.findByRole('combobox', { name: 'Select Collab' });
  await waitFor(() => expect(within(select).getByRole('option', { name: 'Acme Games - GoVip' })).toBeInTheDocument());
  await user.selectOptions(select, 'Acme Games - GoVip');
  return screen.findByTestId('callback-5');
}

describe('Callbacks page (spec 02 §2, §5)', () => {
  it('asks an admin for a collab, then lists its callback URLs with their settings', async () => {
    const calls: Calls = { lists: [], bodies: [] };
    server.use(...handlers(calls));
    const { user } = renderPage();
    expect(await screen.findByRole('heading', { name: 'Callbacks' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Callbacks'));
    expect(screen.getByText('Select a collab to see its callback URLs.')).toBeInTheDocument();
    expect(calls.lists).toEqual([]);

    const row = await chooseCollab(user);
    expect(calls.lists).toEqual(['/api/v1/collabs/1/callbacks']);
    expect(within(row).getByText('https://acme.example/cb')).toBeInTheDocument();
    expect(within(row).getByText('Acme Games - GoVip')).toBeInTheDocument();
    expect(within(row).getByText('Enabled')).toBeInTheDocument();
    expect(within(row).getByText('Signed')).toBeInTheDocument();
    expect(within(row).getByText('Cash In')).toBeInTheDocument();
    // proto3 JSON leaves out false values; a null type means every type.
    const other = screen.getByTestId('callback-6');
    expect(within(other).getByText('Disabled')).toBeInTheDocument();
    expect(within(other).getByText('Unsigned')).toBeInTheDocument();
    expect(within(other).getByText('All')).toBeInTheDocument();
    expect(within(other).getByText('12')).toBeInTheDocument();
  });

  it('adds a callback URL with the defaults, after checking the required fields and the attempts range', async () => {
    const calls: Calls = { lists: [], bodies: [] };
    server.use(
      ...handlers(calls),
      http.post(`${GATEWAY}/api/v1/callbacks`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        calls.bodies.push({ method: 'POST', path: '/api/v1/callbacks', body });
        return HttpResponse.json({ ...body, id: '9', merchantId: 1 });
      }),
    );
    const { user } = renderPage();
    await screen.findByRole('heading', { name: 'Callbacks' });
    await user.click(screen.getByRole('button', { name: 'Add Callback URL' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Callback URL' });

    const attempts = within(dialog).getByRole('spinbutton', { name: 'Max attempts' });
    expect(attempts).toHaveValue(3);
    expect(within(dialog).getByRole('checkbox', { name: 'Enabled' })).toBeChecked();
    expect(within(dialog).getByRole('checkbox', { name: 'Add signature' })).toBeChecked();
    expect(within(dialog).getByRole('combobox', { name: 'Transaction type' })).toHaveDisplayValue('All');
    expect(within(dialog).getByRole('combobox', { name: 'Collaboration' })).toHaveValue('');

    await user.clear(attempts);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('Callback URL is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Collaboration is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Max attempts is required.')).toBeInTheDocument();
    await fill(user, attempts, '13');
    expect(within(dialog).getByText('Max attempts must be between 1 and 12.')).toBeInTheDocument();
    expect(calls.bodies).toEqual([]);

    await waitFor(() => expect(within(dialog).getByRole('option', { name: 'Acme Games - GoVip' })).toBeInTheDocument());
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Collaboration' }), 'Acme Games - GoVip');
    await fill(user, within(dialog).getByRole('textbox', { name: 'Callback URL' }), 'https://acme.example/new');
    await fill(user, attempts, '5');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Transaction type' }), 'Cash Out');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Add signature' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Callback URL created')).toBeInTheDocument();
    expect(calls.bodies[0]?.body).toEqual({ collabId: 1, callbackUrl: 'https://acme.example/new', isEnabled: true, maxAttempts: 5, addSignature: false, transactionTypeId: 2 });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add Callback URL' })).toBeNull());
    // The list of the new callback URL's collab is shown.
    expect(screen.getByRole('combobox', { name: 'Select Collab' })).toHaveValue('1');
  });

  it('leaves the type out for every type, and keeps the dialog open with the server message when the create fails', async () => {
    const calls: Calls = { lists: [], bodies: [] };
    server.use(
      ...handlers(calls),
      http.post(`${GATEWAY}/api/v1/callbacks`, async ({ request }) => {
        calls.bodies.push({ method: 'POST', path: '/api/v1/callbacks', body: await request.json() });
        return HttpResponse.json({ code: 'invalid', message: 'The callback URL points to a private address.' }, { status: 400 });
      }),
    );
    const { user } = renderPage();
    await chooseCollab(user);
    await user.click(screen.getByRole('button', { name: 'Add Callback URL' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Callback URL' });
    // The page's collab is preselected.
    expect(within(dialog).getByRole('combobox', { name: 'Collaboration' })).toHaveValue('1');
    await fill(user, within(dialog).getByRole('textbox', { name: 'Callback URL' }), 'ftp://acme.example/x');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('Callback URL must be an http or https URL.')).toBeInTheDocument();
    await fill(user, within(dialog).getByRole('textbox', { name: 'Callback URL' }), 'http://10.0.0.1/cb');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Failed to create callback URL')).toBeInTheDocument();
    expect(screen.getByText('The callback URL points to a private address.')).toBeInTheDocument();
    expect(calls.bodies[0]?.body).toEqual({ collabId: 1, callbackUrl: 'http://10.0.0.1/cb', isEnabled: true, maxAttempts: 3, addSignature: true });
    expect(screen.getByRole('dialog', { name: 'Add Callback URL' })).toBeInTheDocument();
  });

  it('edits a row only after confirmation, sending 0 for every type', async () => {
    const calls: Calls = { lists: [], bodies: [] };
    let fail = true;
    server.use(
      ...handlers(calls),
      http.post(`${GATEWAY}/api/v1/callbacks/:id`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        calls.bodies.push({ method: 'POST', path: new URL(request.url).pathname, body });
        if (fail) return HttpResponse.json({ code: 'internal', message: 'Storage is unavailable.' }, { status: 500 });
        return HttpResponse.json({ ...CB5, ...body });
      }),
    );
    const { user } = renderPage();
    const row = await chooseCollab(user);
    await user.click(within(row).getByRole('button', { name: 'Edit' }));
    const editing = screen.getByTestId('callback-5');
    const attempts = within(editing).getByRole('spinbutton', { name: 'Max attempts' });
    expect(attempts).toHaveValue(3);
    await fill(user, attempts, '0');
    await user.click(within(editing).getByRole('button', { name: 'Save' }));
    expect(within(editing).getByText('Max attempts must be between 1 and 12.')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).toBeNull();

    await fill(user, attempts, '7');
    await user.selectOptions(within(editing).getByRole('combobox', { name: 'Transaction type' }), 'All');
    await user.click(within(editing).getByRole('checkbox', { name: 'Enabled' }));
    await user.click(within(editing).getByRole('button', { name: 'Save' }));
    let confirm = await screen.findByRole('alertdialog');
    expect(within(confirm).getByText(UPDATE_CONFIRMATION)).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(calls.bodies).toEqual([]);

    await user.click(within(editing).getByRole('button', { name: 'Save' }));
    confirm = await screen.findByRole('alertdialog');
    await user.click(within(confirm).getByRole('button', { name: 'Update' }));
    expect(await screen.findByText('Failed to update callback URL')).toBeInTheDocument();
    expect(screen.getByText('Storage is unavailable.')).toBeInTheDocument();
    // Still editing after a failure.
    expect(within(screen.getByTestId('callback-5')).getByRole('spinbutton', { name: 'Max attempts' })).toHaveValue(7);

    fail = false;
    await user.click(within(screen.getByTestId('callback-5')).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Update' }));
    expect(await screen.findByText('Callback URL updated')).toBeInTheDocument();
    expect(calls.bodies[1]).toEqual({
      method: 'POST',
      path: '/api/v1/callbacks/5',
      body: { id: '5', callbackUrl: 'https://acme.example/cb', isEnabled: false, maxAttempts: 7, addSignature: true, transactionTypeId: 0 },
    });
    await waitFor(() => expect(within(screen.getByTestId('callback-5')).queryByRole('spinbutton')).toBeNull());
  });

  it('deletes a row only after confirmation and reports a failed delete', async () => {
    const calls: Calls = { lists: [], bodies: [] };
    let fail = true;
    server.use(
      ...handlers(calls),
      http.delete(`${GATEWAY}/api/v1/callbacks/:id`, ({ request }) => {
        calls.bodies.push({ method: 'DELETE', path: new URL(request.url).pathname, body: null });
        return fail ? HttpResponse.json({ code: 'not_found', message: 'Callback URL 5 was not found.' }, { status: 404 }) : new HttpResponse(null, { status: 200 });
      }),
    );
    const { user } = renderPage();
    const row = await chooseCollab(user);
    await user.click(within(row).getByRole('button', { name: 'Delete' }));
    let confirm = await screen.findByRole('alertdialog');
    expect(within(confirm).getByText(DELETE_CONFIRMATION)).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(calls.bodies).toEqual([]);

    await user.click(within(screen.getByTestId('callback-5')).getByRole('button', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Failed to delete callback URL')).toBeInTheDocument();
    expect(screen.getByText('Callback URL 5 was not found.')).toBeInTheDocument();

    fail = false;
    const before = calls.lists.length;
    await user.click(within(screen.getByTestId('callback-5')).getByRole('button', { name: 'Delete' }));
    confirm = await screen.findByRole('alertdialog');
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Callback URL deleted')).toBeInTheDocument();
    expect(calls.bodies.map((b) => `${b.method} ${b.path}`)).toEqual(['DELETE /api/v1/callbacks/5', 'DELETE /api/v1/callbacks/5']);
    await waitFor(() => expect(calls.lists.length).toBeGreaterThan(before));
  });

  it("lists a merchant admin's callback URLs without a collab, and hides add, edit and delete without Edit Transactions", async () => {
    const calls: Calls = { lists: [], bodies: [] };
    server.use(...handlers(calls));
    renderPage(READ_ONLY_MERCHANT_ADMIN);
    const row = await screen.findByTestId('callback-5');
    expect(calls.lists).toEqual(['/api/v1/merchants/1/callbacks']);
    expect(screen.getByRole('combobox', { name: 'Select Provider' })).toBeInTheDocument();
    expect(screen.getByText('Showing every callback URL of Acme Games.')).toBeInTheDocument();
    await waitFor(() => expect(within(row).getByText('GoVip')).toBeInTheDocument());
    expect(screen.queryByRole('button', { name: 'Add Callback URL' })).toBeNull();
    expect(within(row).queryByRole('button', { name: 'Edit' })).toBeNull();
    expect(within(row).queryByRole('button', { name: 'Delete' })).toBeNull();
  });

  it('shows the loading state, then the empty state', async () => {
    const calls: Calls = { lists: [], bodies: [] };
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    server.use(
      ...baseHandlers(),
      http.get(`${GATEWAY}/api/v1/merchants/:id/callbacks`, async ({ request }) => {
        calls.lists.push(new URL(request.url).pathname);
        await gate;
        return HttpResponse.json([]);
      }),
    );
    renderPage(MERCHANT_ADMIN);
    const table = await screen.findByRole('table', { name: 'Callback URLs' });
    await waitFor(() => expect(calls.lists).toEqual(['/api/v1/merchants/1/callbacks']));
    expect(table).toHaveAttribute('aria-busy', 'true');
    release();
    expect(await screen.findByText('No callback URLs found. Add one with Add Callback URL.')).toBeInTheDocument();
    expect(table).toHaveAttribute('aria-busy', 'false');
  });
});
