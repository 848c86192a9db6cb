import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { COLLABS, listHandlers, providersLoader } from '../../../testing/fixtures';

function renderPage(user: TestUser = ADMIN, path = '/providers') {
  return renderApp(path, { user, loader: providersLoader() });
}

// The switch in its place: the Providers page's toolbar and banner.
describe('Maintenance switch on the Providers page (spec 01 §2, §8)', () => {
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
});
