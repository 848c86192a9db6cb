import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, GRANTS } from '@paygate/devkit/testing/tokens';
import { BUILT_IN_ROLES, PERMISSIONS } from '@paygate/sdk';
import { describe, expect, it } from 'vitest';
import type { RoleJson } from '@paygate/gen/auth/v1/users_pb';
import { managedUser, renderSecurity, role } from '../../../testing/fixtures';
import { matrixView } from './roles-tab';
import { toRole } from '../api/get-roles';

const ROLES_URL = `${GATEWAY}/api/v1/user/roles`;
const BUILT_IN: RoleJson[] = BUILT_IN_ROLES.map((r) => ({ ...r, permissions: [...r.permissions], builtIn: true, userCount: 1 }));
const AUDITORS = role({ id: 101, name: 'Auditors', permissions: ['Get Transactions', 'View Logs'], userCount: 2 });

/** rolesHandler answers ListRoles (built-in roles and the given custom ones) and records the writes. */
function rolesHandler(custom: RoleJson[] = [AUDITORS]) {
  const sent: { method: string; path: string; body: unknown }[] = [];
  const record = async (request: Request) => {
    const body = request.method === 'DELETE' ? undefined : await request.json();
    sent.push({ method: request.method, path: new URL(request.url).pathname, body });
  };
  server.use(
    http.get(ROLES_URL, () => HttpResponse.json({ roles: [...BUILT_IN, ...custom] })),
    // The tests that land on Active Sessions.
    http.get(`${GATEWAY}/api/v1/user-sessions/active`, () => HttpResponse.json({ sessions: [], totalCount: '0', currentPage: 1, totalPages: 0 })),
    http.post(`${GATEWAY}/api/v1/roles`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ role: role({ id: 102, name: 'Fee desk' }) });
    }),
    http.put(`${GATEWAY}/api/v1/roles/:id`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ role: AUDITORS });
    }),
    http.delete(`${GATEWAY}/api/v1/roles/:id`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ code: 'conflict', message: 'The role Auditors is held by 2 users (alice, bob): give them another role first.' }, { status: 409 });
    }),
    http.get(`${GATEWAY}/api/v1/user/users`, ({ request }) => {
      const roleId = new URL(request.url).searchParams.get('roleId');
      const users = roleId === '101' ? [managedUser({ username: 'alice' }), managedUser({ id: '9', username: 'bob' })] : [];
      return HttpResponse.json({ users, totalCount: String(users.length), currentPage: 1, totalPages: 1 });
    }),
  );
  return sent;
}

const matrix = () => screen.findByRole('table', { name: 'Permission matrix' });
const columnHeaders = (table: HTMLElement) => within(table).getAllByRole('columnheader').map((h) => within(h).queryAllByText(/.+/)[0]?.textContent);
const rowOf = (table: HTMLElement, name: string) => within(table).getByRole('rowheader', { name }).closest('tr') as HTMLElement;

describe('Roles tab (docs/access.md)', () => {
  it('is offered to admins only, by the server rule of role editing', async () => {
    rolesHandler();
    renderSecurity(ADMIN);
    expect(await screen.findByRole('tab', { name: 'Roles' })).toBeInTheDocument();
  });

  it('is not offered to a Merchant Admin, even by its address', async () => {
    rolesHandler();
    renderSecurity({ username: 'ma', roles: ['Merchant Admin'], merchantIds: [1] }, 'roles');
    expect(await screen.findByRole('tab', { name: 'Active Sessions', selected: true })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'Roles' })).not.toBeInTheDocument();
  });

  it('is offered to a custom admin-wide role with Add Users and Edit User, whatever its name', async () => {
    rolesHandler();
    renderSecurity({ username: 'ops', roles: ['Operators'], permissions: ['Add Users', 'Edit User'], globalScope: true });
    expect(await screen.findByRole('tab', { name: 'Roles' })).toBeInTheDocument();
  });

  it('shows the matrix: every role, its holders, its scope and its permissions; built-in roles read-only', async () => {
    rolesHandler();
    renderSecurity(ADMIN, 'roles');
    const table = await matrix();
    await within(table).findByText('Auditors');
    expect(columnHeaders(table)).toEqual(['Permission', ...BUILT_IN_ROLES.map((r) => r.name), 'Auditors']);
    const cells = (name: string) => Array.from(rowOf(table, name).querySelectorAll('td')).map((c) => c.textContent);
    expect(cells('Users')).toEqual([...BUILT_IN_ROLES.map(() => '1 user'), '2 users']);
    expect(cells('Sees every merchant')).toEqual(['Yes', 'Yes', 'No', 'No', 'No', 'No', 'No'].map((v) => (v === 'No' ? '—No' : v)));
    expect(cells('Edit Fees')).toEqual(['Yes', '—No', '—No', '—No', '—No', '—No', '—No']);
    expect(cells('View Logs')).toEqual(['Yes', 'Yes', '—No', 'Yes', '—No', 'Yes', 'Yes']);
    expect(within(table).getAllByRole('rowheader')).toHaveLength(PERMISSIONS.length + 2);
    // Only the custom role has Edit and Delete.
    expect(within(table).getByRole('button', { name: 'Edit role Auditors' })).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: 'Delete role Auditors' })).toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: 'Edit role Admin' })).not.toBeInTheDocument();
    expect(within(table).queryByRole('button', { name: /^Delete role (Admin|Support|Merchant)/ })).not.toBeInTheDocument();
  });

  it('narrows the matrix by the search box, over role and permission names', async () => {
    rolesHandler();
    const user = userEvent.setup();
    renderSecurity(ADMIN, 'roles');
    const table = await matrix();
    await within(table).findByText('Auditors');
    await user.type(screen.getByRole('searchbox', { name: 'Search roles and permissions' }), 'fees');
    await waitFor(() => expect(within(table).getAllByRole('rowheader').map((h) => h.textContent)).toEqual(['Users', 'Sees every merchant', 'View Fees', 'Edit Fees']));
    await user.clear(screen.getByRole('searchbox', { name: 'Search roles and permissions' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search roles and permissions' }), 'audit');
    await waitFor(() => expect(columnHeaders(table)).toEqual(['Permission', 'Auditors']));
    await user.type(screen.getByRole('searchbox', { name: 'Search roles and permissions' }), 'zzz');
    expect(await within(table).findByText('No role or permission matches the search.')).toBeInTheDocument();
  });

  it('lists the users holding a role', async () => {
    rolesHandler();
    const user = userEvent.setup();
    renderSecurity(ADMIN, 'roles');
    const table = await matrix();
    await user.click(await within(table).findByRole('button', { name: 'Users holding Auditors: 2' }));
    const list = await screen.findByRole('list', { name: 'Holders of Auditors' });
    expect(within(list).getAllByRole('listitem').map((i) => i.textContent)).toEqual(['alice', 'bob']);
  });

  it('creates a role from the permissions the user holds', async () => {
    const sent = rolesHandler();
    const user = userEvent.setup();
    // A custom admin-wide role that may edit roles but holds only some permissions.
    renderSecurity({ username: 'ops', roles: ['Operators'], permissions: ['Add Users', 'Edit User', 'View Fees', 'Edit Fees'], globalScope: true }, 'roles');
    await user.click(await screen.findByRole('button', { name: 'New Role' }));
    const dialog = await screen.findByRole('dialog', { name: 'New Role' });
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
    await user.type(within(dialog).getByRole('textbox', { name: 'Name' }), 'Fee desk');
    // A permission the user does not hold cannot be granted.
    expect(within(dialog).getByRole('checkbox', { name: 'Settings Access' })).toBeDisabled();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Edit Fees' }));
    await user.click(within(dialog).getByRole('checkbox', { name: 'View Fees' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({ method: 'POST', path: '/api/v1/roles', body: { name: 'Fee desk', permissions: ['Edit Fees', 'View Fees'], globalScope: false } });
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New Role' })).not.toBeInTheDocument());
  });

  it('edits a custom role: name, scope and permissions, all sent', async () => {
    const sent = rolesHandler();
    const user = userEvent.setup();
    renderSecurity(ADMIN, 'roles');
    await user.click(await screen.findByRole('button', { name: 'Edit role Auditors' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Role Auditors' });
    expect(within(dialog).getByRole('checkbox', { name: 'View Logs' })).toBeChecked();
    const name = within(dialog).getByRole('textbox', { name: 'Name' });
    await user.clear(name);
    await user.type(name, 'Auditors EU');
    await user.click(within(dialog).getByRole('checkbox', { name: 'View Logs' }));
    await user.click(within(dialog).getByRole('checkbox', { name: 'Sees every merchant (admin-wide)' }));
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({ method: 'PUT', path: '/api/v1/roles/101', body: { name: 'Auditors EU', permissions: ['Get Transactions'], globalScope: true } });
  });

  it('asks before deleting, and shows the refusal naming the holders', async () => {
    const sent = rolesHandler();
    const user = userEvent.setup();
    renderSecurity(ADMIN, 'roles');
    await user.click(await screen.findByRole('button', { name: 'Delete role Auditors' }));
    const ask = await screen.findByRole('alertdialog', { name: 'Delete Role' });
    expect(sent).toHaveLength(0);
    await user.click(within(ask).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(sent).toEqual([{ method: 'DELETE', path: '/api/v1/roles/101', body: undefined }]));
    expect(await screen.findByText('The role Auditors is held by 2 users (alice, bob): give them another role first.')).toBeInTheDocument();
  });

  it('says when the roles cannot be read', async () => {
    server.use(http.get(ROLES_URL, () => HttpResponse.json({ code: 'internal', message: 'Something went wrong.' }, { status: 500 })));
    renderSecurity(ADMIN, 'roles');
    expect(await screen.findByRole('alert')).toHaveTextContent('Failed to load roles');
  });
});

describe('matrixView', () => {
  const roles = [toRole(BUILT_IN[0]!), toRole(AUDITORS)];
  it('keeps everything without a search, and narrows by role or by permission', () => {
    expect(matrixView(roles, '  ').permissions).toHaveLength(PERMISSIONS.length);
    expect(matrixView(roles, 'AUDIT')).toEqual({ roles: [roles[1]], permissions: [...PERMISSIONS] });
    expect(matrixView(roles, 'logs')).toEqual({ roles, permissions: ['View Logs'] });
    expect(matrixView(roles, 'nothing')).toEqual({ roles: [], permissions: [] });
  });
  it('knows every built-in grant', () => {
    expect(GRANTS.Admin).toHaveLength(PERMISSIONS.length);
  });
});
