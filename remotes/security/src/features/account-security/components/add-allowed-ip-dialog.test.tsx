import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import type { TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { managedUser, renderSecurity } from '../../../testing/fixtures';

const MERCHANT_ADMIN: TestUser = { username: 'tester', roles: ['Merchant Admin'], merchantIds: [1] };
const USERS = `${GATEWAY}/api/v1/user/users`;

function usersHandler() {
  server.use(http.get(USERS, () => HttpResponse.json({ users: [managedUser(), managedUser({ id: '9', username: 'bob' })], totalCount: '2', currentPage: 1, totalPages: 1 })));
}

async function openDialog() {
  usersHandler();
  const view = renderSecurity(MERCHANT_ADMIN, 'ip-restrictions');
  await view.user.click(await screen.findByRole('button', { name: 'Add' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add IP Restriction' });
  return { ...view, dialog };
}

describe('Add IP Restriction dialog (spec 02 §5, §8)', () => {
  it('requires User, Name, From IP and To IP', async () => {
    const { user, dialog } = await openDialog();
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    for (const text of ['User is required.', 'Name is required.', 'From IP is required.', 'To IP is required.']) {
      expect(await within(dialog).findByText(text)).toBeInTheDocument();
    }
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
  });

  it('asks before creating, posts the range and toasts success', async () => {
    let sent: unknown;
    server.use(
      http.post(`${USERS}/ips`, async ({ request }) => {
        sent = await request.json();
        return HttpResponse.json({ id: '40', name: 'Office', userId: '9', fromIP: '1.1.1.1', toIP: 'x' });
      }),
    );
    const { user, dialog } = await openDialog();
    await within(dialog).findByRole('option', { name: 'bob' });
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'User' }), 'bob');
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Office');
    await user.type(within(dialog).getByRole('textbox', { name: 'From IP' }), '1.1.1.1');
    await user.type(within(dialog).getByRole('textbox', { name: 'To IP' }), 'x');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Create IP Restriction' });
    expect(sent).toBeUndefined();
    await user.click(within(confirm).getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('IP restriction created')).toBeInTheDocument();
    expect(sent).toEqual({ userId: '9', name: 'Office', fromIP: '1.1.1.1', toIP: 'x' });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add IP Restriction' })).not.toBeInTheDocument());
  });

  it("toasts 'Failed to create IP restriction: {message}' and keeps the form", async () => {
    server.use(http.post(`${USERS}/ips`, () => HttpResponse.json({ code: 'invalid', message: 'bad range' }, { status: 400 })));
    const { user, dialog } = await openDialog();
    await within(dialog).findByRole('option', { name: 'alice' });
    await user.selectOptions(within(dialog).getByRole('combobox', { name: 'User' }), 'alice');
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Office');
    await user.type(within(dialog).getByRole('textbox', { name: 'From IP' }), '1.1.1.1');
    await user.type(within(dialog).getByRole('textbox', { name: 'To IP' }), '1.1.1.9');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Create' }));
    expect(await screen.findByText('Failed to create IP restriction: bad range')).toBeInTheDocument();
    expect(within(screen.getByRole('dialog', { name: 'Add IP Restriction' })).getByRole('textbox', { name: 'Name' })).toHaveValue('Office');
  });
});
