import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { locationOf } from '@paygate/devkit/testing';
import { renderSecurity } from '../../../testing/fixtures';

const PLAIN: TestUser = { username: 'tester', roles: ['Merchant Support'] };

function listHandlers() {
  server.use(
    http.get(`${GATEWAY}/api/v1/user-sessions/active`, () => HttpResponse.json({ sessions: [], totalCount: '0', currentPage: 1, totalPages: 0 })),
    http.get(`${AUTH}/api/v1/webauthn/credentials`, () => HttpResponse.json([])),
    http.get(`${GATEWAY}/api/v1/user/users`, () => HttpResponse.json({ users: [], totalCount: '0', currentPage: 1, totalPages: 0 })),
    http.get(`${GATEWAY}/api/v1/user/roles`, () => HttpResponse.json({ roles: [] })),
  );
}

const tabNames = async () => (await screen.findAllByRole('tab')).map((t) => t.textContent);

describe('Account Security page (spec 02 "Account Security", §6)', () => {
  it('is titled Account Security and offers every tab to an admin (Allow IP, Add Users, role editing)', async () => {
    listHandlers();
    renderSecurity(ADMIN);
    expect(await screen.findByRole('heading', { name: 'Account Security', level: 2 })).toBeInTheDocument();
    expect(await tabNames()).toEqual(['Active Sessions', 'Passkeys', 'Two-Factor', 'Password', 'IP Restrictions', 'Users Management', 'Roles', 'Security Policy', 'Sensitive Actions']);
    expect(screen.getByRole('tab', { name: 'Active Sessions' })).toHaveAttribute('aria-selected', 'true');
    await waitFor(() => expect(document.title).toBe('Paygate - Account Security'));
  });

  it('offers only the own tabs (sessions, passkeys, two-factor, password) without those permissions', async () => {
    listHandlers();
    renderSecurity(PLAIN);
    expect(await tabNames()).toEqual(['Active Sessions', 'Passkeys', 'Two-Factor', 'Password']);
  });

  it('falls back to Active Sessions for the security policy tab without Settings Access', async () => {
    listHandlers();
    renderSecurity(PLAIN, 'policy');
    expect(await screen.findByRole('table', { name: 'Active sessions' })).toBeInTheDocument();
    expect(screen.queryByLabelText('Require a second factor')).not.toBeInTheDocument();
  });

  it('explains a reached IP Restrictions tab without Allow IP', async () => {
    listHandlers();
    renderSecurity(PLAIN, 'ip-restrictions');
    expect(await screen.findByText("You don't have permission to manage IP restrictions.")).toBeInTheDocument();
  });

  it('falls back to Active Sessions for the users tab without Add Users', async () => {
    listHandlers();
    renderSecurity(PLAIN, 'users');
    expect(await screen.findByRole('table', { name: 'Active sessions' })).toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Users' })).not.toBeInTheDocument();
  });

  it('switches tabs by click and keeps the tab in the address', async () => {
    listHandlers();
    const { user, router } = renderSecurity(ADMIN);
    await user.click(await screen.findByRole('tab', { name: 'Users Management' }));
    expect(await screen.findByText('No users found.')).toBeInTheDocument();
    expect(locationOf(router)).toBe('/account-security?tab=users');
    await user.click(screen.getByRole('tab', { name: 'Passkeys' }));
    // jsdom has no WebAuthn: the tab says so.
    expect(await screen.findByText('No passkeys yet')).toBeInTheDocument();
    expect(screen.getByText("Your browser or device doesn't support passkeys.")).toBeInTheDocument();
    expect(within(screen.getByRole('tablist')).getByRole('tab', { name: 'Passkeys' })).toHaveAttribute('aria-selected', 'true');
    await user.click(screen.getByRole('tab', { name: 'Active Sessions' }));
    expect(await screen.findByText('No active sessions.')).toBeInTheDocument();
    expect(locationOf(router)).toBe('/account-security');
  });
});
