import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { managedUser, renderSecurity, ROLES } from '../../../testing/fixtures';

async function openDialog() {
  server.use(
    http.get(`${GATEWAY}/api/v1/user/roles`, () => HttpResponse.json({ roles: ROLES })),
    http.get(`${GATEWAY}/api/v1/user/users`, () => HttpResponse.json({ users: [managedUser()], totalCount: '1', currentPage: 1, totalPages: 1 })),
  );
  const view = renderSecurity(ADMIN, 'users');
  await view.user.click(await screen.findByRole('button', { name: 'Change password for alice' }));
  const dialog = await screen.findByRole('dialog', { name: 'Change Password' });
  return { ...view, dialog };
}

const submit = (dialog: HTMLElement) => within(dialog).getByRole('button', { name: 'Change Password' });

describe('Change Password dialog (spec 02 §5 "Change user password", §8)', () => {
  it('is disabled while the password is empty and says "Password is required."', async () => {
    const { user, dialog } = await openDialog();
    const password = within(dialog).getByLabelText('New Password');
    expect(submit(dialog)).toBeDisabled();
    await user.click(password);
    await user.click(within(dialog).getByRole('checkbox', { name: 'Temporary password' }));
    expect(await within(dialog).findByText('Password is required.')).toBeInTheDocument();
    // The password policy (issue 27) is checked as the user types.
    await user.type(password, 'x');
    expect(submit(dialog)).toBeDisabled();
    expect(within(dialog).getByText('At least 12 characters, not only spaces').closest('li')).toHaveTextContent('(not met)');
    await user.type(password, '-Sturdy-Harbor-7');
    expect(submit(dialog)).toBeEnabled();
  });

  it('asks for a confirmation, then posts the new password (temporary by default)', async () => {
    let sent: unknown;
    let path = '';
    server.use(
      http.post(`${GATEWAY}/api/v1/user/:id/change-password`, async ({ request, params }) => {
        path = String(params.id);
        sent = await request.json();
        return HttpResponse.json({});
      }),
    );
    const { user, dialog } = await openDialog();
    expect(within(dialog).getByText('alice')).toBeInTheDocument();
    expect(within(dialog).getByRole('checkbox', { name: 'Temporary password' })).toBeChecked();
    await user.type(within(dialog).getByLabelText('New Password'), 'N3w-pass-Harbor');
    await user.click(submit(dialog));
    const confirm = await screen.findByRole('alertdialog', { name: 'Change Password' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(sent).toBeUndefined();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Temporary password' }));
    await user.click(submit(dialog));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Change' }));
    expect(await screen.findByText('Password changed')).toBeInTheDocument();
    expect(path).toBe('8');
    expect(sent).toEqual({ userId: '8', newPassword: 'N3w-pass-Harbor', isTemporaryPassword: false });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Change Password' })).not.toBeInTheDocument());
  });

  it("shows the server's message, or 'Failed to change password'", async () => {
    server.use(http.post(`${GATEWAY}/api/v1/user/8/change-password`, () => HttpResponse.json({ code: 'invalid', message: 'Password too weak' }, { status: 400 })));
    const { user, dialog } = await openDialog();
    await user.type(within(dialog).getByLabelText('New Password'), 'x-Sturdy-Harbor-7');
    await user.click(submit(dialog));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Change' }));
    expect(await screen.findByText('Password too weak')).toBeInTheDocument();
    server.use(http.post(`${GATEWAY}/api/v1/user/8/change-password`, () => new HttpResponse(null, { status: 500 })));
    await user.click(submit(dialog));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Change' }));
    expect(await screen.findByText('Failed to change password')).toBeInTheDocument();
  });
});
