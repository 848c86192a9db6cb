import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { session, type Permission } from '@paygate/sdk';
import { describe, expect, it } from 'vitest';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { locationOf, renderApp } from '@paygate/devkit/testing';
import { tokensFor, type Role, type TestUser } from '@paygate/devkit/testing/tokens';

function quietSidebar() {
  server.use(
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])),
    // The dashboard at / is the shell's own screen and asks for its figures.
    http.get(`${GATEWAY}/api/v1/statistics`, () => HttpResponse.json({ total: '0', currency: 'USD' })),
  );
}

async function expectScreen(path: string, screenPath: string, user: TestUser) {
  quietSidebar();
  const { router } = renderApp(path, { user });
  expect(await screen.findByText(`Screen ${screenPath}`)).toBeInTheDocument();
  expect(locationOf(router)).toBe(path);
}

async function expectRedirect(path: string, to: string, user: TestUser) {
  quietSidebar();
  const { router } = renderApp(path, { user });
  await waitFor(() => expect(router.state.location.pathname).toBe(to));
}

const only = (...permissions: Permission[]): TestUser => ({ permissions, roles: [] });
const role = (...roles: Role[]): TestUser => ({ roles });

describe('route table guards (spec 01 §2)', () => {
  describe('permission routes: with the permission the screen shows; without, the first route the user may open, else /transactions', () => {
    const rows: [path: string, screenPath: string, permission: Permission][] = [
      ['/providers', '/providers', 'Get Providers'],
      ['/fees', '/fees', 'View Fees'],
      ['/transactions', '/transactions/:id?', 'Get Transactions'],
      ['/transactions/ref-42', '/transactions/:id?', 'Get Transactions'],
      ['/files', '/files', 'Files Access'],
      ['/fraud-management', '/fraud-management', 'View Frauds'],
      ['/balances', '/balances', 'Balance Access'],
      ['/credentials', '/credentials', 'Credentials Access'],
      ['/jobs', '/jobs', 'Jobs Access'],
      ['/settings', '/settings', 'Settings Access'],
    ];
    it.each(rows)('%s with %s', async (path, screenPath, permission) => {
      await expectScreen(path, screenPath, only(permission));
    });
    it.each(rows)('%s without %s goes to the first accessible route', async (path, _screen, permission) => {
      // Balance Access is the user's only permission (Files Access for the balances row).
      const other: Permission = permission === 'Balance Access' ? 'Files Access' : 'Balance Access';
      await expectRedirect(path, other === 'Balance Access' ? '/balances' : '/files', only(other));
    });
    it('the first accessible route follows the table order', async () => {
      await expectRedirect('/jobs', '/providers', only('Balance Access', 'Get Providers', 'View Fees'));
    });
    it('a user who may open none of them goes to /transactions', async () => {
      quietSidebar();
      const { router } = renderApp('/files', { user: only('Edit User') });
      await waitFor(() => expect(router.state.location.pathname).toBe('/transactions'));
      expect(await screen.findByText("You don't have permission to view this page.")).toBeInTheDocument();
    });
  });

  describe('the dashboard', () => {
    it('shows with Statistics Access, rendered by the shell itself', async () => {
      quietSidebar();
      const { router } = renderApp('/', { user: only('Statistics Access') });
      expect(await screen.findByRole('heading', { name: 'Financial Dashboard' })).toBeInTheDocument();
      expect(screen.queryByText('Screen /')).toBeNull();
      expect(locationOf(router)).toBe('/');
      await waitFor(() => expect(document.title).toBe('Paygate - Financial Dashboard'));
    });
    it('sends a user without Statistics Access to /transactions', async () => {
      await expectRedirect('/', '/transactions', only('Get Transactions', 'Get Providers'));
    });
  });

  describe('role routes, restated as requirements: without it, / for users with Statistics Access, else /transactions', () => {
    const rows: [path: string, allowed: Role[]][] = [
      ['/merchants', ['Admin']],
      ['/callbacks', ['Admin', 'Merchant Admin']],
      ['/validation-endpoints', ['Admin', 'Merchant Admin']],
      ['/simulate-payment', ['Admin']],
    ];
    for (const [path, allowed] of rows) {
      it.each(allowed)(`${path} opens for %s`, async (r) => {
        await expectScreen(path, path, role(r));
      });
      it(`${path} sends a Merchant (Statistics Access) to /`, async () => {
        await expectRedirect(path, '/', role('Merchant'));
      });
      it(`${path} sends a Merchant Support (no Statistics Access) to /transactions`, async () => {
        await expectRedirect(path, '/transactions', role('Merchant Support'));
      });
    }
    it('/simulate-payment needs the requirement (admin-wide), not only the sidebar permission', async () => {
      await expectRedirect('/simulate-payment', '/', { roles: ['Merchant'], permissions: ['Create Transactions', 'Statistics Access'] });
    });
    it('/merchants opens for a custom admin-wide role with Edit Collab, whatever its name', async () => {
      await expectScreen('/merchants', '/merchants', { roles: ['Operators'], permissions: ['Edit Collab'], globalScope: true });
    });
  });

  describe('/account-security', () => {
    it.each<Role>(['Admin', 'Merchant Support', 'Merchant Finance Manager'])('opens for any signed-in user (%s)', async (r) => {
      await expectScreen('/account-security', '/account-security', role(r));
    });
  });

  describe('/change-password', () => {
    it('opens for a user with Edit User and a temporary password', async () => {
      await expectScreen('/change-password', '/change-password', { roles: ['Merchant Admin'], isTemporaryPassword: true });
    });
    it('sends a user without a temporary password to /transactions, silently', async () => {
      await expectRedirect('/change-password', '/transactions', { roles: ['Merchant Admin'] });
      expect(screen.queryByText('Access Denied')).not.toBeInTheDocument();
    });
    it("tells a user without Edit User 'Access Denied' and sends them to /transactions, which sends them on to their own form", async () => {
      await expectRedirect('/change-password', '/temporary-password', { roles: ['Merchant'], isTemporaryPassword: true });
      expect(await screen.findByText('Access Denied')).toBeInTheDocument();
      expect(screen.getByText('You do not have permission to change passwords.')).toBeInTheDocument();
    });
  });

  describe('a temporary password (the server refuses every other call until it is replaced)', () => {
    it.each<Role>(['Merchant', 'Merchant Finance Manager', 'Merchant Support', 'Support'])(
      '/temporary-password opens for a %s, whose role lacks Edit User',
      async (r) => {
        await expectScreen('/temporary-password', '/temporary-password', { roles: [r], isTemporaryPassword: true });
      },
    );
    it('/temporary-password sends a user without a temporary password to /transactions', async () => {
      await expectRedirect('/temporary-password', '/transactions', { roles: ['Merchant Support'] });
    });
    it.each<[string, TestUser, string]>([
      ['/transactions', { roles: ['Merchant Support'], isTemporaryPassword: true }, '/temporary-password'],
      ['/account-security', { roles: ['Support'], isTemporaryPassword: true }, '/temporary-password'],
      ['/', { roles: ['Merchant'], isTemporaryPassword: true }, '/temporary-password'],
      ['/transactions', { roles: ['Merchant Admin'], isTemporaryPassword: true }, '/change-password'],
      ['/callbacks', { roles: ['Admin'], isTemporaryPassword: true }, '/change-password'],
    ])('every other route (%s) sends the user to their password form', async (path, user, to) => {
      await expectRedirect(path, to, user);
    });
  });

  describe('signed out', () => {
    it('goes to /login and comes back to the intended URL after login', async () => {
      quietSidebar();
      const pair = tokensFor({ username: 'admin', roles: ['Admin'] });
      server.use(http.post(`${AUTH}/api/v1/login`, () => HttpResponse.json({ ...pair, expiresIn: 300, tokenType: 'Bearer' })));
      const { router, user } = renderApp('/files?page=2');
      await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
      await user.type(screen.getByLabelText('Username'), 'admin');
      await user.type(screen.getByLabelText('Password'), 'paygate-demo');
      await user.click(screen.getByRole('button', { name: 'Login' }));
      expect(await screen.findByText('Screen /files')).toBeInTheDocument();
      expect(locationOf(router)).toBe('/files?page=2');
    });

    it('does not remember / as the place to return to', async () => {
      renderApp('/');
      await screen.findByRole('button', { name: 'Login' });
      expect(session.takeRedirect()).toBeNull();
    });

    it('with a stored token, fetches the user first and stays on the route', async () => {
      quietSidebar();
      const pair = tokensFor({ username: 'support', roles: ['Support'] });
      // As after a page load: tokens stored, no user yet.
      session.signIn(pair);
      session.setUser(null);
      server.use(
        http.get(`${AUTH}/api/v1/validate-token`, () =>
          HttpResponse.json({ valid: true, user: { id: '2', username: 'support', roles: ['Support'], permissions: ['Jobs Access'], merchantIds: [] } }),
        ),
      );
      const { router } = renderApp('/jobs');
      expect(await screen.findByText('Screen /jobs')).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/jobs');
    });

    it('with a stored token the server rejects, ends on /login', async () => {
      const pair = tokensFor({ username: 'gone', roles: ['Admin'] });
      session.signIn(pair);
      session.setUser(null);
      server.use(
        http.get(`${AUTH}/api/v1/validate-token`, () => new HttpResponse(null, { status: 401 })),
        http.post(`${AUTH}/api/v1/refresh-token`, () => new HttpResponse(null, { status: 401 })),
      );
      const { router } = renderApp('/jobs');
      await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
      expect(session.takeRedirect()).toBe('/jobs');
    });
  });
});
