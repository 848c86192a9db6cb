import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { describe, expect, it } from 'vitest';
import { baseHandlers, MERCHANT_ADMIN, READ_ONLY_MERCHANT_ADMIN, transactionsLoader } from '../../../testing/fixtures';
import type { CallbackWire } from '../api/types';
import { headerErrors } from './delivery-settings-dialog';

const CB5: CallbackWire = {
  id: '5',
  collabId: 1,
  merchantId: 1,
  callbackUrl: 'https://acme.example/cb',
  isEnabled: true,
  maxAttempts: 3,
  addSignature: true,
  headers: [
    { name: 'X-Route', value: 'eu-1' },
    { name: 'Authorization', value: '', secret: true },
  ],
};

function setup(failHeaders = false) {
  const updates: unknown[] = [];
  const headerSets: unknown[] = [];
  let stored: CallbackWire = CB5;
  server.use(
    http.get(`${GATEWAY}/api/v1/merchants/:id/callbacks`, () => HttpResponse.json([stored])),
    http.post(`${GATEWAY}/api/v1/callbacks/:id`, async ({ request }) => {
      const body = (await request.json()) as { finalStatuses: number[] };
      updates.push(body);
      stored = { ...stored, finalStatuses: body.finalStatuses[0] === 0 ? [] : body.finalStatuses };
      return HttpResponse.json(stored);
    }),
    http.put(`${GATEWAY}/api/v1/callbacks/:id/headers`, async ({ request }) => {
      const body = (await request.json()) as { headers: { name: string; value: string; secret: boolean }[] };
      headerSets.push(body);
      if (failHeaders) return HttpResponse.json({ code: 'INVALID_ARGUMENT', message: 'headers[2].name "Host" is set by Paygate and cannot be replaced.' }, { status: 400 });
      stored = { ...stored, headers: body.headers.map((h) => ({ ...h, value: h.secret ? '' : h.value })) };
      return HttpResponse.json(stored);
    }),
    ...baseHandlers(),
  );
  return { updates, headerSets };
}

describe('Callbacks page: delivery settings (issue 30)', () => {
  it('lists the headers without secret values, and saves the final statuses and a new header, keeping the secret', async () => {
    const { updates, headerSets } = setup();
    const { user } = renderApp('/callbacks', { user: MERCHANT_ADMIN, loader: transactionsLoader() });
    const row = await screen.findByTestId('callback-5');
    expect(within(row).getByText('X-Route, Authorization (secret)')).toBeInTheDocument();
    await user.click(within(row).getByRole('button', { name: 'Delivery settings of https://acme.example/cb' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delivery settings' });
    // The secret's value is never shown: its field is empty, marked hidden.
    const secretValue = within(dialog).getByLabelText('Header 2 value');
    expect(secretValue).toHaveValue('');
    expect(secretValue).toHaveAttribute('placeholder', 'Hidden: leave empty to keep');

    await user.click(within(dialog).getByRole('checkbox', { name: 'Every final status' }));
    const group = within(dialog).getByRole('group', { name: 'Final statuses' });
    for (const name of ['Cancelled', 'PSP Error', 'PSP Generic', 'Network Error', 'Internal Error', 'Validation Failed']) {
      await user.click(within(group).getByRole('checkbox', { name }));
    }
    await user.click(within(dialog).getByRole('button', { name: 'Add header' }));
    await user.type(within(dialog).getByLabelText('Header 3 name'), 'X-Tenant');
    await user.type(within(dialog).getByLabelText('Header 3 value'), 'acme');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(headerSets).toHaveLength(1));
    expect(updates).toEqual([{ id: '5', finalStatuses: [4] }]);
    expect(headerSets[0]).toEqual({
      id: '5',
      headers: [
        { name: 'X-Route', value: 'eu-1', secret: false },
        { name: 'Authorization', value: '', secret: true },
        { name: 'X-Tenant', value: 'acme', secret: false },
      ],
    });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Delivery settings' })).not.toBeInTheDocument());
  });

  it('checks the headers before sending and shows the service’s refusal in the dialog', async () => {
    const { updates, headerSets } = setup(true);
    const { user } = renderApp('/callbacks', { user: MERCHANT_ADMIN, loader: transactionsLoader() });
    const row = await screen.findByTestId('callback-5');
    await user.click(within(row).getByRole('button', { name: /Delivery settings/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Delivery settings' });
    await user.click(within(dialog).getByRole('button', { name: 'Add header' }));
    await user.type(within(dialog).getByLabelText('Header 3 name'), 'x-route');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('"x-route" is listed twice.')).toBeInTheDocument();
    expect(headerSets).toHaveLength(0);

    await user.clear(within(dialog).getByLabelText('Header 3 name'));
    await user.type(within(dialog).getByLabelText('Header 3 name'), 'Host');
    await user.type(within(dialog).getByLabelText('Header 3 value'), 'evil.example');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('headers[2].name "Host" is set by Paygate and cannot be replaced.');
    expect(updates).toHaveLength(0);
    expect(screen.getByRole('dialog', { name: 'Delivery settings' })).toBeInTheDocument();
  });

  it('offers no settings to a user who may not edit callback URLs', async () => {
    setup();
    renderApp('/callbacks', { user: READ_ONLY_MERCHANT_ADMIN, loader: transactionsLoader() });
    const row = await screen.findByTestId('callback-5');
    expect(within(row).getByText('X-Route, Authorization (secret)')).toBeInTheDocument();
    expect(within(row).queryByRole('button', { name: /Delivery settings/ })).not.toBeInTheDocument();
  });

  it('checks header rows as the service does', () => {
    const row = (name: string, value: string, secret = false, stored = false) => ({ name, value, secret, stored });
    expect(headerErrors([row('X-A', '1'), row('X-B', '', true, true)])).toEqual([null, null]);
    expect(headerErrors([row('', '1')])).toEqual(['Name is required.']);
    expect(headerErrors([row('X A', '1')])[0]).toMatch(/^Name must be a header name/);
    expect(headerErrors([row('X-A', '')])).toEqual(['Value is required.']);
    expect(headerErrors([row('X-A', '', true, false)])).toEqual(['Value is required.']);
    expect(headerErrors([row('X-A', 'a\nb')])[0]).toMatch(/without line breaks/);
  });
});
