import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { session } from '@paygate/sdk';
import { locationOf, renderApp, withRemote } from '@paygate/devkit/testing';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { NEWCOMER, tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import securityRoutes from '../../../routes';

/** The real security remote, the other remotes stubbed. */
const loader = withRemote(securityRoutes);

function renderPage(who: TestUser = NEWCOMER, path = '/change-password') {
  server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([{ id: 1, name: 'Acme Games', hash: 'h' }])));
  return renderApp(path, { user: who, loader });
}

const currentPassword = () => screen.getByLabelText('Current Password');
const newPassword = () => screen.getByLabelText('New Password');
const confirmPassword = () => screen.getByLabelText('Confirm New Password');
const update = () => screen.getByRole('button', { name: 'Update' });

describe('Change Password page (spec 02)', () => {
  it('shows the notice and the masked fields, titled Paygate - Change Password', async () => {
    renderPage();
    expect(await screen.findByText('You are required to change your temporary password.')).toBeInTheDocument();
    expect(currentPassword()).toHaveAttribute('type', 'password');
    expect(newPassword()).toHaveAttribute('type', 'password');
    expect(confirmPassword()).toHaveAttribute('type', 'password');
    await waitFor(() => expect(document.title).toBe('Paygate - Change Password'));
  });

  it('enables Update only when the current password is given and both new fields are filled and equal', async () => {
    const { user } = renderPage();
    await screen.findByLabelText('New Password');
    expect(update()).toBeDisabled();
    await user.type(currentPassword(), 'paygate-temp');
    expect(update()).toBeDisabled();
    await user.type(newPassword(), 'n3w-Secret-Tide');
    expect(update()).toBeDisabled();
    await user.type(confirmPassword(), 'n3w-Secret-Tid');
    expect(update()).toBeDisabled();
    await user.type(confirmPassword(), 'e');
    expect(update()).toBeEnabled();
    await user.clear(newPassword());
    expect(update()).toBeDisabled();
    await user.type(newPassword(), 'n3w-Secret-Tide');
    expect(update()).toBeEnabled();
    await user.clear(currentPassword());
    expect(update()).toBeDisabled();
  });

  it("says 'Passwords do not match or are empty.' when submitted anyway", async () => {
    const { user } = renderPage();
    await user.type(await screen.findByLabelText('New Password'), 'one');
    await user.type(confirmPassword(), 'two');
    fireEvent.submit(update().closest('form')!);
    expect(await screen.findByText('Passwords do not match or are empty.')).toBeInTheDocument();
  });

  it('changes the password, stores the new tokens, refetches the user and goes to /transactions', async () => {
    const next = tokensFor({ ...NEWCOMER, isTemporaryPassword: false });
    let sent: unknown;
    let release: () => void = () => {};
    const answered = new Promise<void>((r) => (release = r));
    server.use(
      http.post(`${AUTH}/api/v1/user/change-password`, async ({ request }) => {
        sent = await request.json();
        await answered;
        return HttpResponse.json({ ...next, expiresIn: 300, tokenType: 'Bearer' });
      }),
      http.get(`${AUTH}/api/v1/validate-token`, ({ request }) =>
        request.headers.get('Authorization') === `Bearer ${next.accessToken}`
          ? HttpResponse.json({
              valid: true,
              user: { id: '7', username: 'newcomer', roles: ['Merchant Admin'], permissions: ['Get Transactions', 'Edit User'], merchantIds: [1], isTemporaryPassword: false },
            })
          : new HttpResponse(null, { status: 401 }),
      ),
    );
    const { user, router } = renderPage();
    await user.type(await screen.findByLabelText('Current Password'), 'paygate-temp');
    await user.type(newPassword(), 'n3w-Secret-Tide');
    await user.type(confirmPassword(), 'n3w-Secret-Tide');
    await user.click(update());
    // While the request runs the button stays disabled.
    await waitFor(() => expect(update()).toBeDisabled());
    release();
    expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
    expect(locationOf(router)).toBe('/transactions');
    expect(sent).toEqual({ currentPassword: 'paygate-temp', password: 'n3w-Secret-Tide' });
    expect(localStorage.getItem('accessToken')).toBe(next.accessToken);
    expect(localStorage.getItem('refreshToken')).toBe(next.refreshToken);
    expect(session.getState().user).toMatchObject({ isTemporaryPassword: false, permissions: ['Get Transactions', 'Edit User'] });
  });

  it("shows the server's message, or 'Failed to change password'", async () => {
    server.use(
      http.post(`${AUTH}/api/v1/user/change-password`, () =>
        HttpResponse.json({ code: 'invalid', message: 'The new password must differ from the temporary one.' }, { status: 400 }),
      ),
    );
    const { user, router } = renderPage();
    await user.type(await screen.findByLabelText('Current Password'), 'paygate-temp');
    await user.type(newPassword(), 'Brand-New-Harbor-9');
    await user.type(confirmPassword(), 'Brand-New-Harbor-9');
    await user.click(update());
    expect(await screen.findByText('The new password must differ from the temporary one.')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/change-password');
    expect(update()).toBeEnabled();

    server.use(http.post(`${AUTH}/api/v1/user/change-password`, () => new HttpResponse(null, { status: 500 })));
    await user.click(update());
    expect(await screen.findByText('Failed to change password')).toBeInTheDocument();
  });

  it('lets a user whose role lacks Edit User replace a temporary password at /temporary-password', async () => {
    const support: TestUser = { username: 'new-support', roles: ['Merchant Support'], merchantIds: [2], isTemporaryPassword: true };
    const next = tokensFor({ ...support, isTemporaryPassword: false });
    let sent: unknown;
    server.use(
      http.post(`${AUTH}/api/v1/user/change-password`, async ({ request }) => {
        sent = await request.json();
        return HttpResponse.json({ ...next, expiresIn: 300, tokenType: 'Bearer' });
      }),
      http.get(`${AUTH}/api/v1/validate-token`, () =>
        HttpResponse.json({
          valid: true,
          user: { id: '7', username: 'new-support', roles: ['Merchant Support'], permissions: ['Get Transactions', 'View Logs', 'Get Providers'], merchantIds: [2], isTemporaryPassword: false },
        }),
      ),
    );
    const { user, router } = renderPage(support, '/temporary-password');
    expect(await screen.findByText('You are required to change your temporary password.')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Change Password'));
    await user.type(currentPassword(), 'Tangerine-Orbit-42');
    await user.type(newPassword(), 'Violet-Harbor-58');
    await user.type(confirmPassword(), 'Violet-Harbor-58');
    await user.click(update());
    expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
    expect(locationOf(router)).toBe('/transactions');
    expect(sent).toEqual({ currentPassword: 'Tangerine-Orbit-42', password: 'Violet-Harbor-58' });
  });
});

describe('Change Password: live password policy (issue 27)', () => {
  const rule = (name: string) => screen.getByText(name).closest('li')!;

  it('marks each rule as the user types, asks the server for the common-password rule, and keeps Update disabled until all are met', async () => {
    const { user } = renderPage();
    await user.type(await screen.findByLabelText('Current Password'), 'paygate-temp');
    expect(rule('At least 12 characters, not only spaces')).toHaveTextContent('•');
    await user.type(newPassword(), 'short');
    expect(rule('At least 12 characters, not only spaces')).toHaveTextContent('(not met)');
    await user.clear(newPassword());
    await user.type(newPassword(), 'Password1234');
    await user.type(confirmPassword(), 'Password1234');
    await waitFor(() => expect(rule('Not a common password')).toHaveTextContent('(not met)'));
    expect(rule('At least 12 characters, not only spaces')).toHaveTextContent('(met)');
    expect(update()).toBeDisabled();
    await user.clear(newPassword());
    await user.type(newPassword(), 'paygate-temp');
    expect(rule('Not your current password')).toHaveTextContent('(not met)');
    await user.clear(newPassword());
    await user.clear(confirmPassword());
    await user.type(newPassword(), 'Sturdy-Harbor-Lantern-7');
    await user.type(confirmPassword(), 'Sturdy-Harbor-Lantern-7');
    await waitFor(() => expect(rule('Not a common password')).toHaveTextContent('(met)'));
    expect(update()).toBeEnabled();
  });
});
