import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import type { CollabLimitsWire } from '../api/types';
import { listHandlers, providersLoader } from '../../../testing/fixtures';

/** GoVip for Acme Games with its cash-out switched off: no withdrawal fields anywhere. */
const LIMITS: CollabLimitsWire = {
  collabId: 1,
  supportsDeposits: true,
  supportsWithdrawals: false,
  minimalDepositAmount: '100.00',
  maximalDepositAmount: '',
  minimalWithdrawAmount: '10.00',
  maximalWithdrawAmount: '',
  collabPayTypeLimits: [
    {
      collabPayTypeId: 11,
      payTypeId: 1,
      paytypeName: 'GCash',
      paytypeCode: 'GCASH',
      supportsDeposits: true,
      supportsWithdrawals: true,
      minimalDepositAmount: '',
      maximalDepositAmount: '5000.00',
      minimalWithdrawAmount: '',
      maximalWithdrawAmount: '',
    },
    {
      collabPayTypeId: 12,
      payTypeId: 2,
      paytypeName: 'Maya',
      paytypeCode: 'MAYA',
      supportsDeposits: false,
      supportsWithdrawals: true,
      minimalDepositAmount: '',
      maximalDepositAmount: '',
      minimalWithdrawAmount: '',
      maximalWithdrawAmount: '',
    },
  ],
};

async function openLimits(limits: CollabLimitsWire | (() => Response) = LIMITS, ...handlers: Parameters<typeof server.use>) {
  server.use(
    http.get(`${GATEWAY}/api/v1/merchants/collab/1/limits`, () => (typeof limits === 'function' ? limits() : HttpResponse.json(limits))),
    ...handlers,
    ...listHandlers(),
  );
  const view = renderApp('/providers', { user: ADMIN, loader: providersLoader() });
  const card = await screen.findByRole('article', { name: 'Acme Games GoVip' });
  await view.user.click(within(card).getByRole('button', { name: 'Limits' }));
  const dialog = await screen.findByRole('dialog', { name: 'Limits - [Acme Games] GoVip' });
  return { ...view, dialog };
}

const group = (dialog: HTMLElement, name: string) => within(dialog).getByRole('group', { name });

describe('Collab limits dialog (spec 01 §2)', () => {
  it('shows a direction’s fields only where the collab and the pay type support it', async () => {
    const { dialog } = await openLimits();
    const collab = await within(dialog).findByRole('group', { name: 'Collab Limits' });
    expect(within(collab).getByLabelText('Minimal deposit')).toHaveValue(100);
    expect(within(collab).getByLabelText('Maximal deposit')).toHaveValue(null);
    expect(within(collab).queryByLabelText('Minimal withdrawal')).not.toBeInTheDocument();

    const gcash = group(dialog, 'GCash (GCASH)');
    expect(within(gcash).getByLabelText('Maximal deposit')).toHaveValue(5000);
    // The pay type supports withdrawals, the collab does not.
    expect(within(gcash).queryByLabelText('Maximal withdrawal')).not.toBeInTheDocument();

    const maya = group(dialog, 'Maya (MAYA)');
    expect(within(maya).queryByRole('spinbutton')).not.toBeInTheDocument();
    expect(within(maya).getByText('Neither deposits nor withdrawals are supported here.')).toBeInTheDocument();

    const input = within(collab).getByLabelText('Minimal deposit');
    expect(input).toHaveAttribute('min', '0');
    expect(input).toHaveAttribute('step', '100');
    expect(within(collab).getAllByText('PHP').length).toBeGreaterThan(0);
  });

  it('highlights changed values until they match the saved ones again', async () => {
    const { dialog, user } = await openLimits();
    const collab = await within(dialog).findByRole('group', { name: 'Collab Limits' });
    const max = within(collab).getByLabelText('Maximal deposit');
    const min = within(collab).getByLabelText('Minimal deposit');
    expect(max).not.toHaveAttribute('data-changed');
    await user.type(max, '2500');
    expect(max).toHaveAttribute('data-changed', 'true');
    expect(within(collab).getByText('Changed')).toBeInTheDocument();
    await user.clear(max);
    expect(max).not.toHaveAttribute('data-changed');
    // 100 is the saved 100.00.
    await user.clear(min);
    await user.type(min, '100');
    expect(min).not.toHaveAttribute('data-changed');
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
  });

  it('sends only the changed values, per collab and per pay type; the button goes loading, success, disabled', async () => {
    const sent: { path: string; body: unknown }[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let saved = LIMITS;
    const { dialog, user } = await openLimits(
      () => HttpResponse.json(saved),
      http.post(`${GATEWAY}/api/v1/merchant/collabs/limits`, async ({ request }) => {
        sent.push({ path: 'collab', body: await request.json() });
        await gate;
        saved = { ...saved, maximalDepositAmount: '2500.00' };
        return HttpResponse.json(saved);
      }),
      http.post(`${GATEWAY}/api/v1/merchants/collabs/pay-type/limits`, async ({ request }) => {
        sent.push({ path: 'pay-type', body: await request.json() });
        return HttpResponse.json(saved);
      }),
    );
    const collab = await within(dialog).findByRole('group', { name: 'Collab Limits' });
    const save = within(dialog).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();

    await user.type(within(collab).getByLabelText('Maximal deposit'), '2500');
    await user.clear(within(group(dialog, 'GCash (GCASH)')).getByLabelText('Minimal deposit'));
    await user.type(within(group(dialog, 'GCash (GCASH)')).getByLabelText('Minimal deposit'), '50.5');
    expect(save).toBeEnabled();
    await user.click(save);
    await waitFor(() => expect(within(dialog).getByRole('button', { name: /Saving/ })).toBeDisabled());
    release();
    expect(await within(dialog).findByRole('button', { name: 'Saved ✓' })).toBeDisabled();
    expect(sent).toEqual([
      { path: 'collab', body: { collabId: 1, maximalDepositAmount: '2500.00' } },
      { path: 'pay-type', body: { collabPayTypeId: 11, minimalDepositAmount: '50.50' } },
    ]);
    // The saved values are the new baseline: nothing is highlighted.
    await waitFor(() => expect(within(collab).getByLabelText('Maximal deposit')).toHaveValue(2500));
    expect(within(dialog).queryByText('Changed')).not.toBeInTheDocument();

    // A new change makes the button idle again.
    await user.clear(within(collab).getByLabelText('Minimal deposit'));
    await user.type(within(collab).getByLabelText('Minimal deposit'), '200');
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeEnabled();
  });

  it('sends an empty string to clear a limit', async () => {
    let body: unknown;
    const { dialog, user } = await openLimits(
      LIMITS,
      http.post(`${GATEWAY}/api/v1/merchant/collabs/limits`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(LIMITS);
      }),
    );
    const collab = await within(dialog).findByRole('group', { name: 'Collab Limits' });
    await user.clear(within(collab).getByLabelText('Minimal deposit'));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(body).toEqual({ collabId: 1, minimalDepositAmount: '' }));
  });

  it('refuses a negative amount', async () => {
    const { dialog, user } = await openLimits();
    const collab = await within(dialog).findByRole('group', { name: 'Collab Limits' });
    await user.type(within(collab).getByLabelText('Maximal deposit'), '-5');
    expect(within(collab).getByText('Enter an amount of 0 or more with at most two decimals.')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
  });

  it("says 'You don't have permission to access this collab limits.' on a refused read", async () => {
    await openLimits(() => HttpResponse.json({ code: 'forbidden', message: 'no' }, { status: 403 }));
    expect(await screen.findByText("You don't have permission to access this collab limits.")).toBeInTheDocument();
  });

  it("says 'Failed to fetch collab limits: {message}' on another failed read", async () => {
    await openLimits(() => HttpResponse.json({ code: 'internal', message: 'database down' }, { status: 500 }));
    expect(await screen.findByText('Failed to fetch collab limits: database down')).toBeInTheDocument();
  });

  it('says which write was refused, and surfaces a 500’s message', async () => {
    const { dialog, user } = await openLimits(
      LIMITS,
      http.post(`${GATEWAY}/api/v1/merchant/collabs/limits`, () => HttpResponse.json({ code: 'forbidden', message: 'no' }, { status: 403 })),
      http.post(`${GATEWAY}/api/v1/merchants/collabs/pay-type/limits`, () =>
        HttpResponse.json({ code: 'internal', message: 'limits table locked' }, { status: 500 }),
      ),
    );
    const collab = await within(dialog).findByRole('group', { name: 'Collab Limits' });
    await user.type(within(collab).getByLabelText('Maximal deposit'), '1');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText("You don't have permission to update this collab limits.")).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeEnabled();

    await user.clear(within(collab).getByLabelText('Maximal deposit'));
    await user.type(within(group(dialog, 'GCash (GCASH)')).getByLabelText('Minimal deposit'), '1');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('limits table locked')).toBeInTheDocument();
  });

  it("says 'You don't have permission to update this collab pay types limits.' on a refused pay type write", async () => {
    const { dialog, user } = await openLimits(
      LIMITS,
      http.post(`${GATEWAY}/api/v1/merchants/collabs/pay-type/limits`, () => HttpResponse.json({ code: 'forbidden', message: 'no' }, { status: 403 })),
    );
    await user.type(within(await within(dialog).findByRole('group', { name: 'GCash (GCASH)' })).getByLabelText('Minimal deposit'), '1');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await screen.findByText("You don't have permission to update this collab pay types limits.")).toBeInTheDocument();
  });
});
