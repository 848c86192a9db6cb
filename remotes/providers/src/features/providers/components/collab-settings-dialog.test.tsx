import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import type { CollabSettingsWire } from '../api/types';
import { listHandlers, providersLoader } from '../../../testing/fixtures';
import { newPayTypePayload } from './add-pay-type-form';

/** Blue Harbor Shop × FbPay: cash-in only, GCash on the collab; FbPay also offers Bank Transfer (cash-out only). */
const SETTINGS: CollabSettingsWire = {
  collabId: 3,
  settings: {
    IsEnabled: 'true',
    IsCashInEnabled: 'true',
    IsCashOutEnabled: 'false',
    ValidateCashIn: 'true',
    ValidateCashOut: 'false',
    IsMerchantCallbackEnabled: 'true',
    IsCreditingToClientsEnabled: 'false',
    IsWithdrawFromClientsEnabled: 'false',
    ExpandByPayType: 'true',
    AwailableOnlyOnDirectAccess: 'false',
    Position: '',
    Mode: '1',
  },
  payTypeSettings: [{ payTypeId: 1, name: 'GCash', code: 'GCASH', cashIn: true, cashOut: true, IsCashInEnabled: true, IsCashOutEnabled: false }],
};

async function openSettings(
  cardName = 'Blue Harbor Shop FbPay',
  settings: CollabSettingsWire | (() => Response) = SETTINGS,
  ...handlers: Parameters<typeof server.use>
) {
  server.use(
    http.get(`${GATEWAY}/api/v1/collabs/:id/settings`, () => (typeof settings === 'function' ? settings() : HttpResponse.json(settings))),
    ...handlers,
    ...listHandlers(),
  );
  const view = renderApp('/providers', { user: ADMIN, loader: providersLoader() });
  const card = await screen.findByRole('article', { name: cardName });
  await view.user.click(within(card).getByRole('button', { name: 'Settings' }));
  const [merchant, provider] = [cardName.split(' ').slice(0, -1).join(' '), cardName.split(' ').at(-1)];
  const dialog = await screen.findByRole('dialog', { name: `Settings - [${merchant}] ${provider}` });
  return { ...view, dialog };
}

const sw = (scope: HTMLElement, name: string) => within(scope).getByRole('checkbox', { name });

describe('Collab settings dialog (spec 01 §2)', () => {
  it('reads the string settings as switches, a number and a mode', async () => {
    const { dialog } = await openSettings('Blue Harbor Shop FbPay', { ...SETTINGS, settings: { ...SETTINGS.settings, Position: '3', Mode: '2' } });
    expect(await within(dialog).findByRole('checkbox', { name: 'Enabled' })).toBeChecked();
    expect(sw(dialog, 'Cash-out enabled')).not.toBeChecked();
    expect(sw(dialog, 'Expand by pay type')).toBeChecked();
    expect(sw(dialog, 'Available only on direct access')).not.toBeChecked();
    expect(within(dialog).getByLabelText('Position')).toHaveValue(3);
    expect(within(dialog).getByLabelText('Mode')).toHaveDisplayValue('Always Success');
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
  });

  it('offers the modes Default, Always Success and Always Failed', async () => {
    const { dialog } = await openSettings();
    const mode = await within(dialog).findByLabelText('Mode');
    expect(within(mode).getAllByRole('option').map((o) => [o.textContent, (o as HTMLOptionElement).value])).toEqual([
      ['Default', '1'],
      ['Always Success', '2'],
      ['Always Failed', '3'],
    ]);
  });

  it('keeps the switches of a direction the provider lacks off and disabled', async () => {
    const { dialog } = await openSettings('Acme Games QRPh', {
      collabId: 2,
      settings: { IsEnabled: 'false', IsCashInEnabled: 'true', IsCashOutEnabled: 'true', ValidateCashOut: 'true', Mode: '1', Position: '' },
      payTypeSettings: [{ payTypeId: 3, name: 'QR Ph', code: 'QRPH', cashIn: true, cashOut: false, IsCashInEnabled: true }],
    });
    expect(await within(dialog).findByRole('checkbox', { name: 'Cash-out enabled' })).toBeDisabled();
    expect(sw(dialog, 'Cash-out enabled')).not.toBeChecked();
    expect(sw(dialog, 'Validate cash-out')).toBeDisabled();
    expect(sw(dialog, 'Cash-in enabled')).toBeEnabled();
    const row = within(dialog).getByRole('row', { name: /QR Ph/ });
    expect(within(row).getByText('Not supported')).toBeInTheDocument();
    expect(within(dialog).getByText('Every pay type of this provider is on the collaboration.')).toBeInTheDocument();
  });

  it('saves only the changed settings as strings with the changed channels, shows success and closes after 1 s', async () => {
    let body: unknown;
    const { dialog, user } = await openSettings(
      'Blue Harbor Shop FbPay',
      SETTINGS,
      http.post(`${GATEWAY}/api/v1/collabs/settings`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(SETTINGS);
      }),
    );
    await user.click(await within(dialog).findByRole('checkbox', { name: 'Merchant callback' }));
    await user.type(within(dialog).getByLabelText('Position'), '5');
    await user.selectOptions(within(dialog).getByLabelText('Mode'), 'Always Failed');
    await user.click(sw(dialog, 'GCash cash-out'));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Settings saved')).toBeInTheDocument();
    expect(body).toEqual({
      collabId: 3,
      settings: { IsMerchantCallbackEnabled: 'false', Position: '5', Mode: '3' },
      payTypeSettings: [{ payTypeId: 1, IsCashInEnabled: true, IsCashOutEnabled: true }],
    });
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), { timeout: 2_500 });
  });

  it('sends a cleared Position as an empty string', async () => {
    let body: { settings?: unknown } = {};
    const { dialog, user } = await openSettings(
      'Blue Harbor Shop FbPay',
      { ...SETTINGS, settings: { ...SETTINGS.settings, Position: '2' } },
      http.post(`${GATEWAY}/api/v1/collabs/settings`, async ({ request }) => {
        body = (await request.json()) as typeof body;
        return HttpResponse.json(SETTINGS);
      }),
    );
    await user.clear(await within(dialog).findByLabelText('Position'));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(body.settings).toEqual({ Position: '' }));
  });

  it("says 'Failed to save collab settings: {message}' with an inline 'Failed to save'", async () => {
    const { dialog, user } = await openSettings(
      'Blue Harbor Shop FbPay',
      SETTINGS,
      http.post(`${GATEWAY}/api/v1/collabs/settings`, () => HttpResponse.json({ code: 'invalid', message: 'Mode is unknown' }, { status: 400 })),
    );
    await user.click(await within(dialog).findByRole('checkbox', { name: 'Enabled' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Failed to save collab settings: Mode is unknown')).toBeInTheDocument();
    expect(within(dialog).getByText('Failed to save')).toBeInTheDocument();
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it("says 'Failed to fetch collab settings: {message}'", async () => {
    await openSettings('Blue Harbor Shop FbPay', () => HttpResponse.json({ code: 'not_found', message: 'collab 3 not found' }, { status: 404 }));
    expect(await screen.findByText('Failed to fetch collab settings: collab 3 not found')).toBeInTheDocument();
  });
});

describe('adding a pay type (spec 01 §2, §5)', () => {
  it('offers only the provider’s pay types not on the collab and needs one chosen', async () => {
    const { dialog } = await openSettings();
    const select = await within(dialog).findByLabelText('Pay type to add');
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select a pay type', 'Bank Transfer (BANK)']);
    expect(within(dialog).getByRole('button', { name: 'Add Pay Type' })).toBeDisabled();
  });

  it('shows direction switches and limit fields only for supported directions; sends filled limits only', async () => {
    let body: unknown;
    const { dialog, user } = await openSettings(
      'Blue Harbor Shop FbPay',
      SETTINGS,
      http.put(`${GATEWAY}/api/v1/3/pay-types`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({});
      }),
    );
    await user.selectOptions(await within(dialog).findByLabelText('Pay type to add'), 'Bank Transfer (BANK)');
    const add = within(dialog).getByRole('group', { name: 'Add Pay Type' });
    expect(within(add).queryByRole('checkbox', { name: 'Cash-in' })).not.toBeInTheDocument();
    expect(within(add).getByRole('checkbox', { name: 'Cash-out' })).toBeChecked();
    expect(within(add).queryByLabelText('Minimal deposit (optional)')).not.toBeInTheDocument();
    await user.type(within(add).getByLabelText('Maximal withdrawal (optional)'), '1000');
    await user.click(within(add).getByRole('button', { name: 'Add Pay Type' }));
    expect(await screen.findByText('Pay type added')).toBeInTheDocument();
    expect(body).toEqual([{ PayTypeId: 4, IsCashInEnabled: false, IsCashOutEnabled: true, MaximalWithdrawalAmount: '1000.00' }]);
  });

  it('builds the payload: a flag stays on only if supported, amounts only when filled and supported', () => {
    const payType = { id: 3, name: 'QR Ph', code: 'QRPH', cashIn: true, cashOut: false, isCashInEnabled: true, isCashOutEnabled: false };
    const amounts = { minimalDepositAmount: '10', maximalDepositAmount: '', minimalWithdrawAmount: '5', maximalWithdrawAmount: '' };
    expect(newPayTypePayload(payType, { cashIn: true, cashOut: true }, amounts)).toEqual({
      PayTypeId: 3,
      IsCashInEnabled: true,
      IsCashOutEnabled: false,
      MinimalDepositAmount: '10.00',
    });
    expect(newPayTypePayload(payType, { cashIn: false, cashOut: true }, { ...amounts, minimalDepositAmount: '' })).toEqual({
      PayTypeId: 3,
      IsCashInEnabled: false,
      IsCashOutEnabled: false,
    });
  });

  it('says a refused or failed add', async () => {
    let status = 403;
    const { dialog, user } = await openSettings(
      'Blue Harbor Shop FbPay',
      SETTINGS,
      http.put(`${GATEWAY}/api/v1/3/pay-types`, () => HttpResponse.json({ code: 'x', message: '' }, { status })),
    );
    await user.selectOptions(await within(dialog).findByLabelText('Pay type to add'), 'Bank Transfer (BANK)');
    await user.click(within(dialog).getByRole('button', { name: 'Add Pay Type' }));
    expect(await screen.findByText("You don't have permission to update collab pay types.")).toBeInTheDocument();
    status = 409;
    await user.click(within(dialog).getByRole('button', { name: 'Add Pay Type' }));
    expect(await screen.findByText('Failed to add pay type')).toBeInTheDocument();
  });
});

describe('removing a pay type', () => {
  it("asks 'Remove {name} ({code}) from this collaboration?' in 'Confirm Deletion', then removes it", async () => {
    let body: unknown;
    const { dialog, user } = await openSettings(
      'Blue Harbor Shop FbPay',
      SETTINGS,
      http.delete(`${GATEWAY}/api/v1/3/pay-types`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({});
      }),
    );
    await user.click(await within(dialog).findByRole('button', { name: 'Remove GCash (GCASH)' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Confirm Deletion' });
    expect(within(confirm).getByText('Remove GCash (GCASH) from this collaboration?')).toBeInTheDocument();
    expect(body).toBeUndefined();
    await user.click(within(confirm).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Pay type removed')).toBeInTheDocument();
    expect(body).toEqual([1]);
  });

  it('removes nothing when cancelled', async () => {
    const { dialog, user } = await openSettings();
    await user.click(await within(dialog).findByRole('button', { name: 'Remove GCash (GCASH)' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('says a refused or failed removal', async () => {
    let status = 403;
    const { dialog, user } = await openSettings(
      'Blue Harbor Shop FbPay',
      SETTINGS,
      http.delete(`${GATEWAY}/api/v1/3/pay-types`, () => new HttpResponse(null, { status })),
    );
    await user.click(await within(dialog).findByRole('button', { name: 'Remove GCash (GCASH)' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText("You don't have permission to delete collab pay types.")).toBeInTheDocument();
    status = 500;
    await user.click(within(dialog).getByRole('button', { name: 'Remove GCash (GCASH)' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Failed to remove pay type')).toBeInTheDocument();
  });
});
