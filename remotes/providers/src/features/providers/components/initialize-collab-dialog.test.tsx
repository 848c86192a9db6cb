import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { toCollab, toProvider } from '../api/types';
import { COLLABS, listHandlers, MERCHANTS, PROVIDERS, providersLoader } from '../../../testing/fixtures';
import { availableProviders } from './initialize-collab-dialog';

async function openInitialize(user: TestUser = ADMIN, ...handlers: Parameters<typeof server.use>) {
  server.use(...handlers, ...listHandlers());
  const view = renderApp('/providers', { user, loader: providersLoader() });
  await screen.findAllByRole('article');
  await view.user.click(screen.getByRole('button', { name: 'Add' }));
  const dialog = await screen.findByRole('dialog', { name: 'Initialize Collaboration' });
  return { ...view, dialog };
}

const options = (select: HTMLElement) => within(select).getAllByRole('option').map((o) => o.textContent);
const checkbox = (scope: HTMLElement, name: string) => within(scope).getByRole('checkbox', { name });

describe('availableProviders (spec 01 §5)', () => {
  const providers = PROVIDERS.map(toProvider);
  const collabs = COLLABS.map(toCollab);
  it('leaves out the providers the merchant already works with', () => {
    expect(availableProviders(providers, collabs, 1).map((p) => p.name)).toEqual(['FbPay', 'RollingPay']);
    expect(availableProviders(providers, collabs, 2).map((p) => p.name)).toEqual(['GoVip', 'QRPh', 'RollingPay']);
  });
  it('offers nothing before a merchant is chosen', () => {
    expect(availableProviders(providers, collabs, undefined)).toEqual([]);
  });
});

describe('Initialize Collaboration dialog (spec 01 §2, §4)', () => {
  it('disables the provider until a merchant is chosen and Save until both are', async () => {
    const { dialog, user } = await openInitialize();
    const merchant = within(dialog).getByLabelText('Merchant');
    expect(options(merchant)).toEqual(['Select a merchant', ...MERCHANTS.map((m) => `${m.name} (${m.id})`)]);
    const provider = await within(dialog).findByLabelText('Provider');
    expect(provider).toBeDisabled();
    const save = within(dialog).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await user.selectOptions(merchant, 'Acme Games (1)');
    expect(provider).toBeEnabled();
    expect(options(provider)).toEqual(['Select a provider', 'FbPay', 'RollingPay']);
    expect(save).toBeDisabled();
    await user.selectOptions(provider, 'FbPay');
    expect(save).toBeEnabled();
  });

  it('starts from the spec’s defaults and takes the directions of the chosen provider', async () => {
    const { dialog, user } = await openInitialize();
    const settings = within(dialog).getByRole('group', { name: 'Collab Settings' });
    for (const on of ['Enabled', 'Cash-in enabled', 'Cash-out enabled', 'Validate cash-in', 'Validate cash-out', 'Merchant callback', 'Expand by pay type']) {
      expect(checkbox(settings, on)).toBeChecked();
    }
    for (const off of ['Crediting to clients', 'Withdraw from clients', 'Available only on direct access']) {
      expect(checkbox(settings, off)).not.toBeChecked();
    }
    expect(within(settings).getByLabelText('Position')).toHaveValue(null);
    expect(within(settings).getByLabelText('Mode')).toHaveDisplayValue('Default');

    await user.selectOptions(within(dialog).getByLabelText('Merchant'), 'Blue Harbor Shop (2)');
    await user.selectOptions(await within(dialog).findByLabelText('Provider'), 'QRPh');
    expect(checkbox(settings, 'Cash-in enabled')).toBeChecked();
    expect(checkbox(settings, 'Validate cash-in')).toBeChecked();
    expect(checkbox(settings, 'Cash-out enabled')).not.toBeChecked();
    expect(checkbox(settings, 'Cash-out enabled')).toBeDisabled();
    expect(checkbox(settings, 'Validate cash-out')).not.toBeChecked();

    await user.selectOptions(within(dialog).getByLabelText('Provider'), 'GoVip');
    expect(checkbox(settings, 'Cash-out enabled')).toBeChecked();
    expect(checkbox(settings, 'Validate cash-out')).toBeChecked();
  });

  it('clears the pay types when the provider changes, and provider and pay types when the merchant changes', async () => {
    const { dialog, user } = await openInitialize();
    await user.selectOptions(within(dialog).getByLabelText('Merchant'), 'Acme Games (1)');
    const provider = await within(dialog).findByLabelText('Provider');
    await user.selectOptions(provider, 'FbPay');
    const payTypes = within(dialog).getByRole('group', { name: 'Pay Types' });
    await user.click(checkbox(payTypes, 'GCash (GCASH)'));
    await user.click(checkbox(payTypes, 'Bank Transfer (BANK)'));
    expect(within(dialog).getByRole('group', { name: 'Pay Type Settings' })).toBeInTheDocument();

    await user.selectOptions(provider, 'RollingPay');
    expect(checkbox(within(dialog).getByRole('group', { name: 'Pay Types' }), 'GCash (GCASH)')).not.toBeChecked();
    expect(within(dialog).queryByRole('group', { name: 'Pay Type Settings' })).not.toBeInTheDocument();

    await user.click(checkbox(within(dialog).getByRole('group', { name: 'Pay Types' }), 'QR Ph (QRPH)'));
    await user.selectOptions(within(dialog).getByLabelText('Merchant'), 'Cobalt Travel (3)');
    expect(within(dialog).getByLabelText('Provider')).toHaveValue('');
    expect(options(within(dialog).getByLabelText('Provider'))).toEqual(['Select a provider', 'GoVip', 'QRPh', 'FbPay']);
    expect(within(dialog).getByText('Choose a provider to see its pay types.')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
  });

  it('asks first, then creates the collab with the payload of spec 01 §3', async () => {
    let body: unknown;
    const { dialog, user } = await openInitialize(
      ADMIN,
      http.post(`${GATEWAY}/api/v1/collabs/initialize`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ id: 9, merchant: { id: 2, name: 'Blue Harbor Shop' }, provider: { id: 1, name: 'GoVip' } });
      }),
    );
    await user.selectOptions(within(dialog).getByLabelText('Merchant'), 'Blue Harbor Shop (2)');
    await user.selectOptions(await within(dialog).findByLabelText('Provider'), 'GoVip');
    await user.click(checkbox(within(dialog).getByRole('group', { name: 'Pay Types' }), 'GCash (GCASH)'));
    const perPayType = within(dialog).getByRole('group', { name: 'Pay Type Settings' });
    expect(checkbox(perPayType, 'GCash cash-in')).toBeChecked();
    await user.click(checkbox(perPayType, 'GCash cash-out'));
    await user.type(within(dialog).getByLabelText('Position'), '2');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));

    const confirm = await screen.findByRole('alertdialog');
    expect(within(confirm).getByText('Are you sure you want to create a new collaboration?')).toBeInTheDocument();
    expect(body).toBeUndefined();
    await user.click(within(confirm).getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Collaboration created')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(body).toEqual({
      ProviderId: 1,
      MerchantId: 2,
      PayTypeIds: [1],
      PayTypeSettings: [{ PayTypeId: 1, IsCashInEnabled: true, IsCashOutEnabled: false }],
      CollabSettings: {
        IsEnabled: 'true',
        IsCashInEnabled: 'true',
        IsCashOutEnabled: 'true',
        ValidateCashIn: 'true',
        ValidateCashOut: 'true',
        IsMerchantCallbackEnabled: 'true',
        IsCreditingToClientsEnabled: 'false',
        IsWithdrawFromClientsEnabled: 'false',
        ExpandByPayType: 'true',
        AwailableOnlyOnDirectAccess: 'false',
        Position: '2',
        Mode: '1',
      },
    });
  });

  it("says 'Failed to create collaboration: {message}' and keeps the form", async () => {
    const { dialog, user } = await openInitialize(
      ADMIN,
      http.post(`${GATEWAY}/api/v1/collabs/initialize`, () =>
        HttpResponse.json({ code: 'conflict', message: 'The merchant already works with this provider.' }, { status: 409 }),
      ),
    );
    await user.selectOptions(within(dialog).getByLabelText('Merchant'), 'Acme Games (1)');
    await user.selectOptions(await within(dialog).findByLabelText('Provider'), 'FbPay');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Failed to create collaboration: The merchant already works with this provider.')).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Initialize Collaboration' })).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Provider')).toHaveDisplayValue('FbPay');
  });

  it('hides the merchant from a merchant user and presets their merchant', async () => {
    let body: { MerchantId?: number } = {};
    const { dialog, user } = await openInitialize(
      MERCHANT_USER,
      http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([MERCHANTS[0]])),
      http.post(`${GATEWAY}/api/v1/collabs/initialize`, async ({ request }) => {
        body = (await request.json()) as typeof body;
        return HttpResponse.json({ id: 9 });
      }),
    );
    expect(within(dialog).queryByLabelText('Merchant')).not.toBeInTheDocument();
    const provider = await within(dialog).findByLabelText('Provider');
    expect(provider).toBeEnabled();
    expect(options(provider)).toEqual(['Select a provider', 'FbPay', 'RollingPay']);
    await user.selectOptions(provider, 'RollingPay');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Create' }));
    await waitFor(() => expect(body.MerchantId).toBe(1));
  });

  it('opens for the merchant of ?initialize= (the Merchants page after adding one) and drops the parameter', async () => {
    server.use(...listHandlers());
    const { router } = renderApp('/providers?initialize=2', { user: ADMIN, loader: providersLoader() });
    const dialog = await screen.findByRole('dialog', { name: 'Initialize Collaboration' });
    // An admin keeps the merchant field, preset (once the merchants' list has loaded its options).
    await waitFor(() => expect(within(dialog).getByLabelText('Merchant')).toHaveValue('2'));
    expect(options(await within(dialog).findByLabelText('Provider'))).toEqual(['Select a provider', 'GoVip', 'QRPh', 'RollingPay']);
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });
});
