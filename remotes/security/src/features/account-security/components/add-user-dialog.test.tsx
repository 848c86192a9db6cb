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
  await view.user.click(await screen.findByRole('button', { name: 'Add User' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add User' });
  await within(dialog).findByRole('option', { name: 'Merchant Admin' });
  await within(dialog).findByRole('option', { name: 'Blue Bet' });
  return { ...view, dialog };
}

const save = (dialog: HTMLElement) => within(dialog).getByRole('button', { name: 'Save' });

describe('Add User dialog (spec 02 "Account Security", §3, §5, §8)', () => {
  it('says what is required and enables Save only with username, password, a merchant and a role', async () => {
    const { user, dialog } = await openDialog();
    const username = within(dialog).getByRole('textbox', { name: 'Username' });
    const password = within(dialog).getByLabelText('Password');
    expect(password).toHaveAttribute('type', 'password');
    expect(save(dialog)).toBeDisabled();
    await user.click(username);
    await user.click(password);
    await user.click(within(dialog).getByRole('combobox', { name: 'Role' }));
    await user.click(username);
    expect(await within(dialog).findByText('Username is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Password is required.')).toBeInTheDocument();
    expect(within(dialog).getByText('Role is required.')).toBeInTheDocument();
    await user.type(username, 'carol');
    await user.type(password, 'S3cret-Lantern!');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Role' }), 'Merchant Admin');
    expect(save(dialog)).toBeDisabled();
    await user.selectOptions(within(dialog).getByRole('listbox', { name: 'Merchants' }), 'Blue Bet');
    expect(save(dialog)).toBeEnabled();
  });

  it('creates the user with a temporary password by default and toasts User created', async () => {
    let sent: unknown;
    server.use(
      http.post(`${GATEWAY}/api/v1/user/add`, async ({ request }) => {
        sent = await request.json();
        return HttpResponse.json({ user: managedUser({ id: '10', username: 'carol' }) });
      }),
    );
    const { user, dialog } = await openDialog();
    expect(within(dialog).getByRole('checkbox', { name: 'Temporary password' })).toBeChecked();
    expect(within(dialog).getByRole('checkbox', { name: 'Strict access rules (IP restricted)' })).not.toBeChecked();
    await user.type(within(dialog).getByRole('textbox', { name: 'Username' }), 'carol');
    await user.type(within(dialog).getByLabelText('Password'), 'S3cret-Lantern!');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Role' }), 'Merchant Admin');
    await user.selectOptions(within(dialog).getByRole('listbox', { name: 'Merchants' }), ['Acme Games', 'Cobalt Pay']);
    await user.click(within(dialog).getByRole('checkbox', { name: 'Strict access rules (IP restricted)' }));
    await user.click(save(dialog));
    expect(await screen.findByText('User created')).toBeInTheDocument();
    expect(sent).toEqual({ username: 'carol', password: 'S3cret-Lantern!', roleId: 2, merchantIds: [1, 3], hasStrictAccessRules: true, isTemporaryPassword: true });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add User' })).not.toBeInTheDocument());
  });

  it("shows the server's message, or 'Failed to create user', and keeps the form", async () => {
    server.use(http.post(`${GATEWAY}/api/v1/user/add`, () => HttpResponse.json({ code: 'already_exists', message: 'User carol already exists' }, { status: 409 })));
    const { user, dialog } = await openDialog();
    await user.type(within(dialog).getByRole('textbox', { name: 'Username' }), 'carol');
    await user.type(within(dialog).getByLabelText('Password'), 'S3cret-Lantern!');
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'Role' }), 'Admin');
    await user.selectOptions(within(dialog).getByRole('listbox', { name: 'Merchants' }), 'Acme Games');
    await user.click(save(dialog));
    expect(await screen.findByText('User carol already exists')).toBeInTheDocument();
    server.use(http.post(`${GATEWAY}/api/v1/user/add`, () => new HttpResponse(null, { status: 500 })));
    await user.click(save(dialog));
    expect(await screen.findByText('Failed to create user')).toBeInTheDocument();
    expect(within(dialog).getByRole('textbox', { name: 'Username' })).toHaveValue('carol');
  });
});
