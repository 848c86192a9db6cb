import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { baseHandlers, READ_ONLY_MERCHANT_ADMIN, transactionsLoader } from '../../../testing/fixtures';
import type { ValidationEndpointWire } from '../api/types';
import { DELETE_CONFIRMATION, UPDATE_CONFIRMATION } from './validation-endpoints-page';

const EP7: ValidationEndpointWire = { id: '7', collabId: 1, merchantId: 1, url: 'https://acme.example/validate', priority: 2, awaitable: true, forCashIn: true };

interface Calls {
  lists: string[];
  writes: { method: string; path: string; body: unknown }[];
}

function handlers(calls: Calls, list: ValidationEndpointWire[] = [EP7]) {
  return [
    ...baseHandlers(),
    http.get(`${GATEWAY}/api/v1/collabs/:id/validation-endpoints`, ({ request, params }) => {
      calls.lists.push(new URL(request.url).pathname);
      return HttpResponse.json(params.id === '1' ? list : []);
    }),
  ];
}

function renderPage(user: TestUser = ADMIN) {
  return renderApp('/validation-endpoints', { user, loader: transactionsLoader() });
}

type User = ReturnType<typeof renderPage>['user'];

async function search(user: User, collab = 'Acme Games - GoVip') {
  const select = await screen.findByRole('combobox', { name: 'Select Collab' });
  await waitFor(() => expect(within(select).getByRole('option', { name: collab })).toBeInTheDocument());
  await user.selectOptions(select, collab);
  await user.click(screen.getByRole('button', { name: 'Search' }));
}

/** fill puts text in a field at once (typing each character is slow and proves nothing more here). */
async function fill(user: User, field: HTMLElement, text: string) {
  await user.clear(field);
  if (text) {
    await user.click(field);
    await user.paste(text);
  }
}

describe('Validation Endpoints page (spec 02 §2, §5)', () => {
  it('shows the permission message to a user without Edit Transactions', async () => {
    server.use(...handlers({ lists: [], writes: [] }));
    renderPage(READ_ONLY_MERCHANT_ADMIN);
    expect(await screen.findByText("You don't have permission to view this page.")).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add' })).toBeNull();
    expect(screen.queryByRole('heading', { name: 'Validation Endpoints' })).toBeNull();
  });

  it('asks for a collab before searching, lists its endpoints, and clears', async () => {
    const calls: Calls = { lists: [], writes: [] };
    server.use(...handlers(calls));
    const { user } = renderPage();
    expect(await screen.findByRole('heading', { name: 'Validation Endpoints' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Validation Endpoints'));
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('Please select a collaboration before searching.')).toBeInTheDocument();
    expect(calls.lists).toEqual([]);

    await search(user);
    const row = await screen.findByTestId('endpoint-7');
    expect(calls.lists).toEqual(['/api/v1/collabs/1/validation-endpoints']);
    expect(within(row).getByText('https://acme.example/validate')).toBeInTheDocument();
    expect(within(row).getByText('2')).toBeInTheDocument();
    // Awaitable and Cash In yes; Cash Out left out of the JSON, so no.
    expect(within(row).getAllByText('Yes')).toHaveLength(2);
    expect(within(row).getAllByText('No')).toHaveLength(1);

    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(screen.queryByTestId('endpoint-7')).toBeNull();
    expect(screen.getByRole('combobox', { name: 'Select Collab' })).toHaveValue('');
    expect(screen.getByText('Select a collaboration and press Search to see its validation endpoints.')).toBeInTheDocument();
  });

  it('shows the empty state of a collab without endpoints', async () => {
    server.use(...handlers({ lists: [], writes: [] }));
    const { user } = renderPage();
    await search(user, 'Blue Harbor Shop - FbPay');
    expect(await screen.findByText('No validation endpoints found for this collaboration.')).toBeInTheDocument();
  });

  it('adds an endpoint with the defaults, after checking the required fields and the priority range', async () => {
    const calls: Calls = { lists: [], writes: [] };
    let fail = true;
    server.use(
      ...handlers(calls),
      http.post(`${GATEWAY}/api/v1/collabs/validation-endpoints`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        calls.writes.push({ method: 'POST', path: new URL(request.url).pathname, body });
        if (fail) return HttpResponse.json({ code: 'invalid', message: 'The endpoint URL points to a private address.' }, { status: 400 });
        return HttpResponse.json({ ...body, id: '8', merchantId: 1 });
      }),
    );
    const { user } = renderPage();
    await screen.findByRole('heading', { name: 'Validation Endpoints' });
    await user.click(screen.getByRole('button', { name: 'Add' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Validation Endpoint' });
    const priority = within(dialog).getByRole('spinbutton', { name: 'Priority' });
    expect(priority).toHaveValue(1);
    for (const name of ['Awaitable', 'Cash In', 'Cash Out']) expect(within(dialog).getByRole('checkbox', { name })).not.toBeChecked();

    await user.clear(priority);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(within(dialog).getByText('Endpoint URL is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Collaboration is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Priority is required.')).toBeInTheDocument();
    await fill(user, priority, '101');
    expect(within(dialog).getByText('Priority must be between 1 and 100.')).toBeInTheDocument();
    expect(calls.writes).toEqual([]);

    await waitFor(() => expect(within(dialog).getByRole('option', { name: 'Acme Games - GoVip' })).toBeInTheDocument());
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Collaboration' }), 'Acme Games - GoVip');
    await fill(user, within(dialog).getByRole('textbox', { name: 'Endpoint URL' }), 'https://acme.example/check');
    await fill(user, priority, '100');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Cash Out' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Failed to create validation endpoint')).toBeInTheDocument();
    expect(screen.getByText('The endpoint URL points to a private address.')).toBeInTheDocument();

    fail = false;
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Validation endpoint created')).toBeInTheDocument();
    expect(calls.writes[1]?.body).toEqual({ collabId: 1, url: 'https://acme.example/check', priority: 100, awaitable: false, forCashIn: false, forCashOut: true });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add Validation Endpoint' })).toBeNull());
    // The list of the endpoint's collab is shown.
    expect(await screen.findByTestId('endpoint-7')).toBeInTheDocument();
    expect(screen.getByRole('combobox', { name: 'Select Collab' })).toHaveValue('1');
  });

  it('edits after confirmation and warns when the endpoint moved to another collab', async () => {
    const calls: Calls = { lists: [], writes: [] };
    let fail = true;
    server.use(
      ...handlers(calls),
      http.post(`${GATEWAY}/api/v1/collabs/validation-endpoints/:id`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        calls.writes.push({ method: 'POST', path: new URL(request.url).pathname, body });
        if (fail) return HttpResponse.json({ code: 'internal', message: 'Storage is unavailable.' }, { status: 500 });
        return HttpResponse.json({ ...EP7, ...body, merchantId: 2 });
      }),
    );
    const { user } = renderPage();
    await search(user);
    await user.click(within(await screen.findByTestId('endpoint-7')).getByRole('button', { name: 'Edit' }));
    const row = screen.getByTestId('endpoint-7');
    await fill(user, within(row).getByRole('spinbutton', { name: 'Priority' }), '0');
    await user.click(within(row).getByRole('button', { name: 'Save' }));
    expect(within(row).getByText('Priority must be between 1 and 100.')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).toBeNull();

    await fill(user, within(row).getByRole('spinbutton', { name: 'Priority' }), '5');
    await user.selectOptions(within(row).getByRole('combobox', { name: 'Collaboration' }), 'Blue Harbor Shop - FbPay');
    await user.click(within(row).getByRole('checkbox', { name: 'Awaitable' }));
    await user.click(within(row).getByRole('button', { name: 'Save' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(within(confirm).getByText(UPDATE_CONFIRMATION)).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(calls.writes).toEqual([]);

    await user.click(within(row).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Update' }));
    expect(await screen.findByText('Failed to update validation endpoint')).toBeInTheDocument();
    expect(screen.getByText('Storage is unavailable.')).toBeInTheDocument();
    expect(screen.queryByText('Collaboration Changed')).toBeNull();

    fail = false;
    await user.click(within(screen.getByTestId('endpoint-7')).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Update' }));
    expect(await screen.findByText('Validation endpoint updated')).toBeInTheDocument();
    expect(await screen.findByText('Collaboration Changed')).toBeInTheDocument();
    expect(calls.writes[1]).toEqual({
      method: 'POST',
      path: '/api/v1/collabs/validation-endpoints/7',
      body: { id: '7', collabId: 3, url: 'https://acme.example/validate', priority: 5, awaitable: false, forCashIn: true, forCashOut: false },
    });
  });

  it('deletes after confirmation and reports a failed delete', async () => {
    const calls: Calls = { lists: [], writes: [] };
    let fail = true;
    server.use(
      ...handlers(calls),
      http.delete(`${GATEWAY}/api/v1/collabs/validation-endpoints/:id`, ({ request }) => {
        calls.writes.push({ method: 'DELETE', path: new URL(request.url).pathname, body: null });
        return fail ? HttpResponse.json({ code: 'forbidden', message: 'You may not change this collab.' }, { status: 403 }) : new HttpResponse(null, { status: 200 });
      }),
    );
    const { user } = renderPage();
    await search(user);
    await user.click(within(await screen.findByTestId('endpoint-7')).getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(within(confirm).getByText(DELETE_CONFIRMATION)).toBeInTheDocument();
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Failed to delete validation endpoint')).toBeInTheDocument();
    expect(screen.getByText('You may not change this collab.')).toBeInTheDocument();

    fail = false;
    await user.click(within(screen.getByTestId('endpoint-7')).getByRole('button', { name: 'Delete' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Validation endpoint deleted')).toBeInTheDocument();
    expect(calls.writes.map((w) => `${w.method} ${w.path}`)).toEqual(['DELETE /api/v1/collabs/validation-endpoints/7', 'DELETE /api/v1/collabs/validation-endpoints/7']);
  });
});
