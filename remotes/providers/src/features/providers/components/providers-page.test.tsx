import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { locationOf, renderApp } from '@paygate/devkit/testing';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
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

  it('asks before enabling maintenance, then shows the banner; disabling needs no question', async () => {
    let on = false;
    server.use(
      http.get(`${GATEWAY}/api/v1/merchant-collabs`, () => HttpResponse.json({ collabs: COLLABS, isMaintenanceModeEnabled: on })),
      http.post(`${GATEWAY}/api/v1/maintenance/enable`, () => {
        on = true;
        return HttpResponse.json({ isEnabled: true });
      }),
      http.post(`${GATEWAY}/api/v1/maintenance/disable`, () => {
        on = false;
        return HttpResponse.json({ isEnabled: false });
      }),
      ...listHandlers(),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    const banner = 'New transactions will not be accepted regardless of provider status';
    expect(screen.queryByText(banner)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Enable Maintenance' }));
    await user.click(within(await screen.findByRole('alertdialog', { name: 'Enable Maintenance' })).getByRole('button', { name: 'Enable' }));
    expect(await screen.findByText(banner)).toBeInTheDocument();
    expect(on).toBe(true);
    await user.click(await screen.findByRole('button', { name: 'Disable Maintenance' }));
    await waitFor(() => expect(screen.queryByText(banner)).not.toBeInTheDocument());
    expect(on).toBe(false);
  });

  describe('maintenance errors (spec 01 §8 "Maintenance")', () => {
    /** failWith answers a maintenance call with status and, when given, the server's message. */
    const failWith = (status: number, message?: string) => () =>
      message === undefined ? new HttpResponse(null, { status }) : HttpResponse.json({ code: 'x', message }, { status });

    /** toggle presses the toolbar's maintenance button (confirming an enable) once the page is loaded. */
    async function toggle(on: boolean, user: ReturnType<typeof renderPage>['user']) {
      await user.click(await screen.findByRole('button', { name: on ? 'Enable Maintenance' : 'Disable Maintenance' }));
      if (on) await user.click(within(await screen.findByRole('alertdialog', { name: 'Enable Maintenance' })).getByRole('button', { name: 'Enable' }));
    }

    it.each([
      { on: true, status: 401, text: "You don't have permission to enable maintenance mode." },
      { on: true, status: 403, text: "You don't have permission to enable maintenance mode." },
      { on: false, status: 401, text: "You don't have permission to disable maintenance mode." },
      { on: false, status: 403, text: "You don't have permission to disable maintenance mode." },
    ])('a $status on $on (true: enable) says the permission text of that direction', async ({ on, status, text }) => {
      server.use(
        http.post(`${GATEWAY}/api/v1/maintenance/${on ? 'enable' : 'disable'}`, failWith(status, 'Permission denied')),
        // A 401 is retried once after a refresh; the refreshed token is refused too.
        http.post(`${AUTH}/api/v1/refresh-token`, () => HttpResponse.json(tokensFor(ADMIN))),
        ...listHandlers({ maintenance: !on }),
      );
      const { user } = renderPage();
      await toggle(on, user);
      expect(await screen.findByText(text)).toBeInTheDocument();
      expect(screen.queryByText('Permission denied')).not.toBeInTheDocument();
    });

    it.each([
      { on: true, message: 'Maintenance store unavailable', text: 'Maintenance store unavailable' },
      { on: true, message: undefined, text: 'Failed to enable maintenance mode' },
      { on: false, message: 'Maintenance store unavailable', text: 'Maintenance store unavailable' },
      { on: false, message: undefined, text: 'Failed to disable maintenance mode' },
    ])('another failure ($on, true: enable) says the server message, or the fallback of its direction: $text', async ({ on, message, text }) => {
      server.use(http.post(`${GATEWAY}/api/v1/maintenance/${on ? 'enable' : 'disable'}`, failWith(500, message)), ...listHandlers({ maintenance: !on }));
      const { user } = renderPage();
      await toggle(on, user);
      expect(await screen.findByText(text)).toBeInTheDocument();
    });

    it.each([
      { status: 500, message: undefined, text: 'Failed to toggle maintenance mode' },
      { status: 503, message: 'Gateway is restarting', text: 'Gateway is restarting' },
      // A refused read has no direction to name: not the permission text of either.
      { status: 403, message: undefined, text: 'Failed to toggle maintenance mode' },
    ])(
      'when the state cannot be read the button toggles; a read that fails again ($status) says $text and changes nothing',
      async ({ status, message, text }) => {
        const changes: string[] = [];
        server.use(
          http.get(`${GATEWAY}/api/v1/maintenance/status`, failWith(status, message)),
          http.post(`${GATEWAY}/api/v1/maintenance/:verb`, ({ params }) => {
            changes.push(String(params.verb));
            return HttpResponse.json({ isEnabled: params.verb === 'enable' });
          }),
          ...listHandlers({ bare: true }),
        );
        const { user } = renderPage();
        await screen.findAllByRole('article');
        const toggleButton = await screen.findByRole('button', { name: 'Toggle Maintenance' });
        expect(screen.queryByRole('button', { name: /^(Enable|Disable) Maintenance$/ })).not.toBeInTheDocument();
        await user.click(toggleButton);
        expect(await screen.findByText(text)).toBeInTheDocument();
        expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
        expect(changes).toEqual([]);
      },
    );

    it('when the state cannot be read at first, the toggle reads it again and goes the other way', async () => {
      let reads = 0;
      let on = true;
      server.use(
        http.get(`${GATEWAY}/api/v1/maintenance/status`, () => {
          reads += 1;
          return reads === 1 ? new HttpResponse(null, { status: 500 }) : HttpResponse.json({ isEnabled: on });
        }),
        http.post(`${GATEWAY}/api/v1/maintenance/disable`, () => {
          on = false;
          return HttpResponse.json({ isEnabled: false });
        }),
        ...listHandlers({ bare: true }),
      );
      const { user } = renderPage();
      await user.click(await screen.findByRole('button', { name: 'Toggle Maintenance' }));
      expect(await screen.findByText('Maintenance mode disabled')).toBeInTheDocument();
      expect(on).toBe(false);
      expect(await screen.findByRole('button', { name: 'Enable Maintenance' })).toBeInTheDocument();
    });
  });

  it('reads the maintenance status when the collab list comes as a bare list', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/maintenance/status`, () => HttpResponse.json({ isEnabled: true })), ...listHandlers({ bare: true }));
    renderPage();
    expect(await screen.findByText('New transactions will not be accepted regardless of provider status')).toBeInTheDocument();
    expect(await screen.findAllByRole('article')).toHaveLength(4);
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

  it('opens Recent Actions for the merchant of the admin’s tab, or for every collab', async () => {
    const asked: string[] = [];
    server.use(
      http.get(`${GATEWAY}/api/v1/logs/collabs/activity`, () => {
        asked.push('all');
        return HttpResponse.json({ status: 'success', data: { result: [] } });
      }),
      http.get(`${GATEWAY}/api/v1/logs/merchants/:id/collabs/activity`, ({ params }) => {
        asked.push(String(params.id));
        return HttpResponse.json({ status: 'success', data: { result: [] } });
      }),
      ...listHandlers(),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(screen.getByRole('button', { name: 'Recent Actions' }));
    const all = await screen.findByRole('dialog', { name: 'Recent Collab Actions' });
    expect(await within(all).findByText('No activity logs available')).toBeInTheDocument();
    await user.click(within(all).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.click(screen.getByRole('tab', { name: 'Blue Harbor Shop' }));
    await user.click(screen.getByRole('button', { name: 'Recent Actions' }));
    expect(await screen.findByRole('dialog', { name: 'Recent Actions - Blue Harbor Shop' })).toBeInTheDocument();
    await waitFor(() => expect(asked).toEqual(['all', '2']));
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
