import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { locationOf, renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { collab, COLLABS, GCASH, listHandlers, MAYA, providersLoader } from '../../../testing/fixtures';
import type { CollabLimitsWire, CollabSettingsWire } from '../api/types';

function renderPage(user: TestUser = ADMIN, path = '/providers') {
  return renderApp(path, { user, loader: providersLoader() });
}

/** The cards in page order, as 'Merchant Provider' (their accessible names). */
async function cardNames() {
  const cards = await screen.findAllByRole('article');
  return cards.map((c) => `${c.querySelector('p')?.textContent} ${within(c).getByRole('heading', { level: 3 }).textContent}`);
}

const card = (name: string) => screen.getByRole('article', { name });

describe('Providers page (spec 01 §2)', () => {
  it('shows a card per collab, enabled ones first, titled Paygate - Providers', async () => {
    server.use(...listHandlers());
    renderPage();
    expect(await cardNames()).toEqual([
      'Blue Harbor Shop FbPay',
      'Acme Games GoVip',
      'Cobalt Travel RollingPay',
      'Acme Games QRPh',
    ]);
    await waitFor(() => expect(document.title).toBe('Paygate - Providers'));
  });

  it('shows the badge, arrow and cash counts with the colours of spec 01 §4', async () => {
    server.use(
      ...listHandlers({
        collabs: [
          ...COLLABS,
          collab(5, 2, 1, { payTypes: [{ ...GCASH, isCashInEnabled: false, isCashOutEnabled: false }, { ...MAYA, isCashOutEnabled: false }] }),
        ],
      }),
    );
    renderPage();
    await screen.findAllByRole('article');

    const govip = card('Acme Games GoVip');
    expect(within(govip).getByText('Active').closest('[data-severity]')).toHaveAttribute('data-severity', 'success');
    expect(within(govip).getByRole('img', { name: 'Cash-in and cash-out on' })).toHaveTextContent('⇅');
    expect(within(govip).getByLabelText('Cash-in 2 of 2 enabled')).toHaveAttribute('data-severity', 'success');

    const fbpay = card('Blue Harbor Shop FbPay');
    expect(within(fbpay).getByText('Active').closest('[data-severity]')).toHaveAttribute('data-severity', 'warning');
    expect(within(fbpay).getByRole('img', { name: 'Cash-in on' })).toHaveTextContent('↓');
    expect(within(fbpay).getByLabelText('Cash-out 1 of 1 enabled')).toBeInTheDocument();

    const qrph = card('Acme Games QRPh');
    expect(within(qrph).getByText('Disabled').closest('[data-severity]')).toHaveAttribute('data-severity', 'secondary');
    expect(within(qrph).getByLabelText('Cash-out 0 of 0 enabled')).toHaveAttribute('data-severity', 'danger');

    const blueGovip = card('Blue Harbor Shop GoVip');
    expect(within(blueGovip).getByText('Active').closest('[data-severity]')).toHaveAttribute('data-severity', 'success');
    expect(within(blueGovip).getByLabelText('Cash-in 1 of 2 enabled')).toHaveAttribute('data-severity', 'warning');
    expect(within(blueGovip).getByLabelText('Cash-out 0 of 2 enabled')).toHaveAttribute('data-severity', 'danger');
  });

  it("searches by provider name and says when nothing matches", async () => {
    server.use(...listHandlers());
    const { user } = renderPage();
    await screen.findAllByRole('article');
    const search = screen.getByPlaceholderText('Search by name...');
    await user.type(search, 'pay');
    expect(await cardNames()).toEqual(['Blue Harbor Shop FbPay', 'Cobalt Travel RollingPay']);
    await user.clear(search);
    await user.type(search, 'Acme');
    expect(await screen.findByText('No collaborations found')).toBeInTheDocument();
    expect(screen.queryAllByRole('article')).toHaveLength(0);
  });

  it('sorts by provider, merchant or status in either direction, enabled first', async () => {
    server.use(...listHandlers());
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(screen.getByRole('button', { name: /Sort ascending/ }));
    expect(await cardNames()).toEqual(['Cobalt Travel RollingPay', 'Acme Games GoVip', 'Blue Harbor Shop FbPay', 'Acme Games QRPh']);
    await user.selectOptions(screen.getByLabelText('Sort by'), 'merchant');
    expect(await cardNames()).toEqual(['Cobalt Travel RollingPay', 'Blue Harbor Shop FbPay', 'Acme Games GoVip', 'Acme Games QRPh']);
    await user.click(screen.getByRole('button', { name: /Sort descending/ }));
    expect(await cardNames()).toEqual(['Acme Games GoVip', 'Blue Harbor Shop FbPay', 'Cobalt Travel RollingPay', 'Acme Games QRPh']);
    await user.selectOptions(screen.getByLabelText('Sort by'), 'status');
    expect(await cardNames()).toEqual(['Acme Games GoVip', 'Cobalt Travel RollingPay', 'Blue Harbor Shop FbPay', 'Acme Games QRPh']);
  });

  it('gives admins per-merchant tabs and a merchant filter', async () => {
    server.use(...listHandlers());
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(screen.getByRole('tab', { name: 'Acme Games' }));
    expect(await cardNames()).toEqual(['Acme Games GoVip', 'Acme Games QRPh']);
    await user.click(screen.getByRole('tab', { name: 'All' }));

    await user.click(screen.getByRole('button', { name: 'Filter merchants: All merchants' }));
    await user.click(await screen.findByRole('menuitemcheckbox', { name: 'Cobalt Travel' }));
    await user.click(await screen.findByRole('menuitemcheckbox', { name: 'Blue Harbor Shop' }));
    await user.keyboard('{Escape}');
    expect(await cardNames()).toEqual(['Blue Harbor Shop FbPay', 'Cobalt Travel RollingPay']);
    expect(screen.getByRole('button', { name: 'Filter merchants: 2 selected' })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'Acme Games' })).not.toBeInTheDocument();
  });

  it('shows a merchant user only the current merchant, without the admin controls', async () => {
    let asked = '';
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([{ id: 1, name: 'Acme Games', hash: 'h' }])),
      http.get(`${GATEWAY}/api/v1/merchant-collabs`, ({ request }) => {
        asked = new URL(request.url).searchParams.get('merchantId') ?? '';
        // Even an answer wider than the scope shows only the current merchant.
        return HttpResponse.json({ collabs: COLLABS, isMaintenanceModeEnabled: false });
      }),
      ...listHandlers(),
    );
    renderPage(MERCHANT_USER);
    await waitFor(async () => expect(await cardNames()).toEqual(['Acme Games GoVip', 'Acme Games QRPh']));
    await waitFor(() => expect(asked).toBe('1'));
    expect(screen.queryByRole('tab')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Filter merchants/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Maintenance/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Add' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Recent Actions' })).toBeInTheDocument();
  });

  it('shows the toolbar by role and permission', async () => {
    server.use(...listHandlers());
    renderPage({ username: 'support', roles: ['Support'] });
    await screen.findAllByRole('article');
    expect(screen.queryByRole('button', { name: 'Add' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /Maintenance/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Recent Actions' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeInTheDocument();
    // Support holds View Fees.
    expect(within(card('Acme Games GoVip')).getByRole('button', { name: 'Fees' })).toBeInTheDocument();
  });

  it('hides Fees without View Fees and opens /fees?collabId= with it', async () => {
    server.use(...listHandlers());
    const { user, router } = renderPage();
    await screen.findAllByRole('article');
    await user.click(within(card('Acme Games GoVip')).getByRole('button', { name: 'Fees' }));
    await waitFor(() => expect(locationOf(router)).toBe('/fees?collabId=1'));
  });

  it('has no Fees button for a user without View Fees', async () => {
    server.use(...listHandlers());
    renderPage({ username: 'ms', roles: ['Merchant Support'], merchantIds: [1] });
    await screen.findAllByRole('article');
    expect(screen.queryByRole('button', { name: 'Fees' })).not.toBeInTheDocument();
  });

  it("enables a collab at once and says '[merchant] provider is now enabled'", async () => {
    let call = '';
    server.use(
      http.post(`${GATEWAY}/api/v1/collabs/:id/activeness`, ({ request, params }) => {
        call = `${params.id} ${new URL(request.url).searchParams.get('isEnabled')}`;
        return HttpResponse.json({});
      }),
      ...listHandlers(),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(within(card('Acme Games QRPh')).getByRole('button', { name: 'Enable' }));
    expect(await screen.findByText('[Acme Games] QRPh is now enabled')).toBeInTheDocument();
    expect(call).toBe('2 true');
  });

  it('asks before disabling a collab, and reports a failure', async () => {
    const calls: string[] = [];
    server.use(
      http.post(`${GATEWAY}/api/v1/collabs/:id/activeness`, ({ request, params }) => {
        calls.push(`${params.id} ${new URL(request.url).searchParams.get('isEnabled')}`);
        return calls.length === 1
          ? HttpResponse.json({})
          : HttpResponse.json({ code: 'forbidden', message: 'You may not change this collab.' }, { status: 403 });
      }),
      ...listHandlers(),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(within(card('Acme Games GoVip')).getByRole('button', { name: 'Disable' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Disable Collaboration' });
    expect(calls).toEqual([]);
    await user.click(within(confirm).getByRole('button', { name: 'Disable' }));
    expect(await screen.findByText('[Acme Games] GoVip is now disabled')).toBeInTheDocument();
    expect(calls).toEqual(['1 false']);

    await user.click(within(card('Cobalt Travel RollingPay')).getByRole('button', { name: 'Disable' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Disable' }));
    expect(await screen.findByText('Failed to update provider activeness: You may not change this collab.')).toBeInTheDocument();
  });

  it('refreshes the list on demand', async () => {
    let calls = 0;
    server.use(
      http.get(`${GATEWAY}/api/v1/merchant-collabs`, () => {
        calls += 1;
        return HttpResponse.json({ collabs: calls === 1 ? COLLABS.slice(0, 1) : COLLABS, isMaintenanceModeEnabled: false });
      }),
      ...listHandlers(),
    );
    const { user } = renderPage();
    expect(await screen.findAllByRole('article')).toHaveLength(1);
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(4));
  });

  it('shows skeletons while loading and an error with Retry', async () => {
    let fail = true;
    server.use(
      http.get(`${GATEWAY}/api/v1/merchant-collabs`, () =>
        fail ? HttpResponse.json({ code: 'internal', message: 'database down' }, { status: 500 }) : HttpResponse.json({ collabs: COLLABS }),
      ),
      ...listHandlers(),
    );
    const { user } = renderPage();
    expect(await screen.findByLabelText('Loading collaborations')).toBeInTheDocument();
    expect(await screen.findByText('Failed to fetch collaborations: database down')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findAllByRole('article')).toHaveLength(4);
  });

  describe('shows a control only when the server lets the user make its call', () => {
    const SETTINGS: CollabSettingsWire = {
      collabId: 1,
      settings: { IsEnabled: 'true', IsCashInEnabled: 'true', IsCashOutEnabled: 'true', Mode: '1', Position: '' },
      payTypeSettings: [{ payTypeId: 1, name: 'GCash', code: 'GCASH', cashIn: true, cashOut: true, IsCashInEnabled: true, IsCashOutEnabled: true }],
    };
    const LIMITS: CollabLimitsWire = {
      collabId: 1,
      supportsDeposits: true,
      supportsWithdrawals: true,
      minimalDepositAmount: '100.00',
      maximalDepositAmount: '',
      minimalWithdrawAmount: '',
      maximalWithdrawAmount: '',
      collabPayTypeLimits: [],
    };
    const dialogs = () => [
      http.get(`${GATEWAY}/api/v1/collabs/:id/settings`, () => HttpResponse.json(SETTINGS)),
      http.get(`${GATEWAY}/api/v1/merchants/collab/:id/limits`, () => HttpResponse.json(LIMITS)),
    ];

    /** What the user sees of the page and of the GoVip card's dialogs. */
    async function controls(who: TestUser) {
      server.use(...dialogs(), ...listHandlers());
      const { user } = renderPage(who);
      const govip = await screen.findByRole('article', { name: 'Acme Games GoVip' });
      const seen = {
        add: !!screen.queryByRole('button', { name: 'Add' }),
        maintenance: !!screen.queryByRole('button', { name: /Maintenance/ }),
        toggle: !!within(govip).queryByRole('button', { name: 'Disable' }),
        settingsSave: false,
        removePayType: false,
        addPayType: false,
        switchesEnabled: false,
        limitsSave: false,
        limitsEditable: false,
      };
      await user.click(within(govip).getByRole('button', { name: 'Settings' }));
      const settings = await screen.findByRole('dialog', { name: 'Settings - [Acme Games] GoVip' });
      await within(settings).findByRole('checkbox', { name: 'Enabled' });
      seen.settingsSave = !!within(settings).queryByRole('button', { name: 'Save' });
      seen.removePayType = !!within(settings).queryByRole('button', { name: 'Remove GCash (GCASH)' });
      seen.addPayType = !!within(settings).queryByRole('button', { name: /Add pay type/i });
      seen.switchesEnabled = !(within(settings).getByRole('checkbox', { name: 'Enabled' }) as HTMLInputElement).disabled;
      await user.click(within(settings).getAllByRole('button', { name: /Cancel|Close/ })[0]!);
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

      await user.click(within(govip).getByRole('button', { name: 'Limits' }));
      const limits = await screen.findByRole('dialog', { name: 'Limits - [Acme Games] GoVip' });
      const input = await within(limits).findByLabelText(/Minimal deposit/i);
      seen.limitsSave = !!within(limits).queryByRole('button', { name: 'Save' });
      seen.limitsEditable = !(input as HTMLInputElement).disabled && !(input as HTMLInputElement).readOnly;
      return seen;
    }

    it('Merchant: Add (its rule names the role), but no change of a collab (Edit Collab) nor maintenance', async () => {
      expect(await controls({ username: 'merchant', roles: ['Merchant'], merchantIds: [1] })).toEqual({
        add: true,
        maintenance: false,
        toggle: false,
        settingsSave: false,
        removePayType: false,
        addPayType: false,
        switchesEnabled: false,
        limitsSave: false,
        limitsEditable: false,
      });
    });

    it('Merchant Support: reads only', async () => {
      expect(await controls({ username: 'ms', roles: ['Merchant Support'], merchantIds: [1] })).toMatchObject({
        add: false,
        maintenance: false,
        toggle: false,
        settingsSave: false,
        removePayType: false,
        addPayType: false,
        limitsSave: false,
        limitsEditable: false,
      });
    });

    it('Merchant Admin: changes its collabs (Edit Collab) but not maintenance', async () => {
      expect(await controls({ username: 'ma', roles: ['Merchant Admin'], merchantIds: [1] })).toEqual({
        add: true,
        maintenance: false,
        toggle: true,
        settingsSave: true,
        removePayType: true,
        addPayType: true,
        switchesEnabled: true,
        limitsSave: true,
        limitsEditable: true,
      });
    });

    it('a user given only Edit Maintenance Mode sees the maintenance toggle', async () => {
      server.use(...listHandlers());
      renderPage({ username: 'ops', roles: ['Support'], permissions: ['Get Providers', 'Edit Maintenance Mode'] });
      await screen.findAllByRole('article');
      expect(screen.getByRole('button', { name: 'Enable Maintenance' })).toBeInTheDocument();
      expect(screen.queryByRole('button', { name: 'Recent Actions' })).not.toBeInTheDocument();
    });
  });
});
