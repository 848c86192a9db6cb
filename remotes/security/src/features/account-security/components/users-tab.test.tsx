import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import type { ManagedUserJson } from '@paygate/gen/auth/v1/users_pb';
import { managedUser, renderSecurity, ROLES } from '../../../testing/fixtures';

const USERS = `${GATEWAY}/api/v1/user/users`;

/** usersHandler answers the list and the roles, recording each list query. */
function usersHandler(users: ManagedUserJson[] = [managedUser()], paging: { totalCount?: string; totalPages?: number } = {}) {
  const queries: URLSearchParams[] = [];
  server.use(
    http.get(`${GATEWAY}/api/v1/user/roles`, () => HttpResponse.json({ roles: ROLES })),
    http.get(USERS, ({ request }) => {
      const q = new URL(request.url).searchParams;
      queries.push(q);
      return HttpResponse.json({ users, totalCount: paging.totalCount ?? String(users.length), currentPage: Number(q.get('page')), totalPages: paging.totalPages ?? 1 });
    }),
  );
  return queries;
}

/** updateHandler records the PUT bodies. */
function updateHandler() {
  const sent: unknown[] = [];
  server.use(
    http.put(`${GATEWAY}/api/v1/user`, async ({ request }) => {
      sent.push(await request.json());
      return HttpResponse.json({ user: managedUser() });
    }),
  );
  return sent;
}

const rowOf = async (username: string) =>
  (await within(await screen.findByRole('table', { name: 'Users' })).findByText(username, { selector: 'span' })).closest('tr') as HTMLElement;

describe('Users Management tab (spec 02 "Account Security", §5, §8, §9)', () => {
  it('lists users with merchant tags, role tags, flags and a Current tag on the own user', async () => {
    usersHandler([
      managedUser({ merchantIds: [1, 2, 3], isIpRestricted: true }),
      managedUser({ id: '7', username: 'admin', merchantIds: [], roleIds: [1], roles: ['Admin'], isPaygateAdmin: true }),
      managedUser({ id: '9', username: 'bob', merchantIds: [2], roleIds: [2], roles: [], isMerchantAdmin: true, isDisabled: true }),
    ]);
    renderSecurity(ADMIN, 'users');
    const table = await screen.findByRole('table', { name: 'Users' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'Id',
      'Username',
      'Merchants',
      'Roles',
      'Paygate Admin',
      'Merchant Admin',
      'IP Restricted',
      'Disabled',
      'Actions',
    ]);
    const alice = await rowOf('alice');
    await within(alice).findByText('Acme Games');
    expect(within(alice).getByText('Blue Bet')).toBeInTheDocument();
    expect(within(alice).queryByText('Cobalt Pay')).not.toBeInTheDocument();
    expect(within(alice).getByRole('button', { name: 'All merchants: Acme Games, Blue Bet, Cobalt Pay' })).toHaveTextContent('...');
    expect(within(alice).getByText('Merchant Support')).toBeInTheDocument();
    expect(within(alice).queryByText('Current')).not.toBeInTheDocument();
    const cells = (row: HTMLElement) => Array.from(row.querySelectorAll('td')).map((c) => c.textContent);
    expect(cells(alice).slice(4, 8)).toEqual(['No', 'No', 'Yes', 'No']);
    const own = await rowOf('admin');
    expect(within(own).getByText('Current')).toBeInTheDocument();
    expect(cells(own).slice(4, 8)).toEqual(['Yes', 'No', 'No', 'No']);
    const bob = await rowOf('bob');
    // Role names from the role list when the server sent only ids.
    expect(await within(bob).findByText('Merchant Admin', { selector: 'span' })).toBeInTheDocument();
    expect(cells(bob).slice(4, 8)).toEqual(['No', 'Yes', 'No', 'Yes']);
    expect(within(bob).getByRole('button', { name: 'Change password for bob' })).toBeInTheDocument();
  });

  it('shows every merchant name in the tooltip of "..."', async () => {
    usersHandler([managedUser({ merchantIds: [1, 2, 3] })]);
    const { user } = renderSecurity(ADMIN, 'users');
    const more = await screen.findByRole('button', { name: 'All merchants: Acme Games, Blue Bet, Cobalt Pay' });
    await user.hover(more);
    expect(await screen.findByText('Acme Games, Blue Bet, Cobalt Pay')).toBeInTheDocument();
  });

  it('says "No users found." for an empty list, and searches and pages on the server', async () => {
    const queries = usersHandler([], { totalCount: '0', totalPages: 0 });
    const { user } = renderSecurity(ADMIN, 'users');
    expect(await screen.findByText('No users found.')).toBeInTheDocument();
    expect(queries[0]?.get('page')).toBe('1');
    expect(queries[0]?.get('take')).toBe('10');
    await user.type(screen.getByRole('searchbox', { name: 'Search users' }), 'bo');
    await waitFor(() => expect(queries.at(-1)?.get('search')).toBe('bo'));
  });

  it('pages through the users', async () => {
    const queries = usersHandler([managedUser()], { totalCount: '25', totalPages: 3 });
    const { user } = renderSecurity(ADMIN, 'users');
    await rowOf('alice');
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(queries.at(-1)?.get('page')).toBe('2'));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Rows per page' }), '20');
    await waitFor(() => expect(queries.at(-1)?.get('take')).toBe('20'));
  });

  it('draws the change-password key as an icon, never an emoji (no emoji font needed), named for the user', async () => {
    usersHandler([managedUser(), managedUser({ id: '9', username: 'bob' })]);
    renderSecurity(ADMIN, 'users');
    const key = await screen.findByRole('button', { name: 'Change password for alice' });
    expect(key.querySelector('svg')).not.toBeNull();
    expect(key.querySelector('svg')).toHaveAttribute('aria-hidden', 'true');
    const table = screen.getByRole('table', { name: 'Users' });
    for (const button of within(table).getAllByRole('button')) {
      expect(button.textContent ?? '').not.toMatch(/\p{Extended_Pictographic}/u);
    }
  });

  it('sends only the changed fields of an edited row', async () => {
    usersHandler();
    const sent = updateHandler();
    const { user } = renderSecurity(ADMIN, 'users');
    await user.click(await screen.findByRole('button', { name: 'Edit alice' }));
    const row = (await screen.findByRole('textbox', { name: 'Username' })).closest('tr') as HTMLElement;
    await within(row).findByRole('option', { name: 'Merchant Admin' });
    await user.selectOptions(within(row).getByRole('combobox', { name: 'Role' }), 'Merchant Admin');
    await user.click(within(row).getByRole('checkbox', { name: 'IP Restricted' }));
    await user.click(within(row).getByRole('button', { name: 'Save' }));
    // A role change asks first.
    const confirm = await screen.findByRole('alertdialog', { name: 'Change Role' });
    await user.click(within(confirm).getByRole('button', { name: 'Change Role' }));
    expect(await screen.findByText('User updated')).toBeInTheDocument();
    expect(sent).toEqual([{ userId: '8', roleIds: [2], isIpRestricted: true }]);
  });

  it('asks before changing a role, naming the user, the old and the new role; Cancel sends nothing', async () => {
    usersHandler();
    const sent = updateHandler();
    const { user } = renderSecurity(ADMIN, 'users');
    await user.click(await screen.findByRole('button', { name: 'Edit alice' }));
    const row = (await screen.findByRole('textbox', { name: 'Username' })).closest('tr') as HTMLElement;
    await within(row).findByRole('option', { name: 'Merchant Admin' });
    await user.selectOptions(within(row).getByRole('combobox', { name: 'Role' }), 'Merchant Admin');
    await user.click(within(row).getByRole('button', { name: 'Save' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Change Role' });
    expect(within(confirm).getByText('Change the role of alice from Merchant Support to Merchant Admin?')).toBeInTheDocument();
    expect(sent).toEqual([]);
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(sent).toEqual([]);
    // Still editing, the choice kept.
    expect(within(row).getByRole('combobox', { name: 'Role' })).toHaveValue('2');

    await user.click(within(row).getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('alertdialog', { name: 'Change Role' })).getByRole('button', { name: 'Change Role' }));
    expect(await screen.findByText('User updated')).toBeInTheDocument();
    expect(sent).toEqual([{ userId: '8', roleIds: [2] }]);
  });

  it('names the new username in the question when the row renames the user too', async () => {
    usersHandler([managedUser({ roleIds: [], roles: ['Merchant Support'] })]);
    updateHandler();
    const { user } = renderSecurity(ADMIN, 'users');
    await user.click(await screen.findByRole('button', { name: 'Edit alice' }));
    const name = await screen.findByRole('textbox', { name: 'Username' });
    const row = name.closest('tr') as HTMLElement;
    await user.type(name, '2');
    await within(row).findByRole('option', { name: 'Admin' });
    await user.selectOptions(within(row).getByRole('combobox', { name: 'Role' }), 'Admin');
    await user.click(within(row).getByRole('button', { name: 'Save' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Change Role' });
    expect(within(confirm).getByText('Change the role of alice (renamed alice2) from Merchant Support to Admin?')).toBeInTheDocument();
  });

  it('sends a new username and merchants, never an emptied merchant list', async () => {
    usersHandler();
    const sent = updateHandler();
    const { user } = renderSecurity(ADMIN, 'users');
    await user.click(await screen.findByRole('button', { name: 'Edit alice' }));
    const name = await screen.findByRole('textbox', { name: 'Username' });
    const row = name.closest('tr') as HTMLElement;
    await user.clear(name);
    await user.type(name, 'alice2');
    const merchants = within(row).getByRole('listbox', { name: 'Merchants' });
    await within(merchants).findByRole('option', { name: 'Blue Bet' });
    await user.deselectOptions(merchants, 'Acme Games');
    await user.click(within(row).getByRole('button', { name: 'Save' }));
    await screen.findByText('User updated');
    expect(sent).toEqual([{ userId: '8', username: 'alice2' }]);

    await user.click(await screen.findByRole('button', { name: 'Edit alice' }));
    const row2 = (await screen.findByRole('textbox', { name: 'Username' })).closest('tr') as HTMLElement;
    const merchants2 = within(row2).getByRole('listbox', { name: 'Merchants' });
    await within(merchants2).findByRole('option', { name: 'Blue Bet' });
    await user.selectOptions(merchants2, 'Blue Bet');
    await user.click(within(row2).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toEqual({ userId: '8', merchantIds: [1, 2] });
  });

  it('says "Nothing to update" when nothing changed, and requires a username', async () => {
    usersHandler();
    const sent = updateHandler();
    const { user } = renderSecurity(ADMIN, 'users');
    await user.click(await screen.findByRole('button', { name: 'Edit alice' }));
    await screen.findByRole('textbox', { name: 'Username' });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Nothing to update')).toBeInTheDocument();
    await user.clear(screen.getByRole('textbox', { name: 'Username' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Username is required.')).toBeInTheDocument();
    expect(sent).toEqual([]);
  });

  it("shows the server's message, or 'Failed to update user'", async () => {
    usersHandler();
    server.use(http.put(`${GATEWAY}/api/v1/user`, () => HttpResponse.json({ code: 'already_exists', message: 'Username taken' }, { status: 409 })));
    const { user } = renderSecurity(ADMIN, 'users');
    await user.click(await screen.findByRole('button', { name: 'Edit alice' }));
    await user.type(await screen.findByRole('textbox', { name: 'Username' }), 'x');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Username taken')).toBeInTheDocument();
    server.use(http.put(`${GATEWAY}/api/v1/user`, () => new HttpResponse(null, { status: 500 })));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Failed to update user')).toBeInTheDocument();
  });
});
