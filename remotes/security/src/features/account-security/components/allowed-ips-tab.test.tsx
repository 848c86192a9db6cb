import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import type { TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { managedUser, renderSecurity } from '../../../testing/fixtures';

const MERCHANT_ADMIN: TestUser = { username: 'tester', roles: ['Merchant Admin'], merchantIds: [1] };
/** Allow IP without Add Users: the user list is refused. */
const IP_ONLY: TestUser = { username: 'tester', permissions: ['Allow IP', 'Get Transactions'] };
const USERS = `${GATEWAY}/api/v1/user/users`;
const RANGES = [
  { id: '31', name: 'Office', userId: '8', fromIP: '10.0.0.1', toIP: '10.0.0.255' },
  { id: '32', name: 'VPN', userId: '8', fromIP: '172.16.0.1', toIP: '172.16.0.1' },
];

function usersHandler() {
  server.use(
    http.get(USERS, ({ request }) => {
      const search = new URL(request.url).searchParams.get('search') ?? '';
      const all = [managedUser(), managedUser({ id: '9', username: 'bob' })];
      return HttpResponse.json({ users: all.filter((u) => u.username!.includes(search)), totalCount: '2', currentPage: 1, totalPages: 1 });
    }),
  );
}

/** rangesHandler answers the list of user 8 and counts its calls. */
function rangesHandler(ranges = RANGES) {
  const calls = { n: 0 };
  server.use(
    http.get(`${USERS}/8/ips`, () => {
      calls.n += 1;
      return HttpResponse.json(ranges);
    }),
  );
  return calls;
}

/** openTab opens the tab and waits for the remote's screen. */
async function openTab(u: TestUser) {
  const view = renderSecurity(u, 'ip-restrictions');
  await screen.findByRole('combobox', { name: 'User' });
  return view;
}

const userSelect = () => screen.getByRole('combobox', { name: 'User' });

async function searchFor(user: Awaited<ReturnType<typeof openTab>>['user'], username: string) {
  await within(userSelect()).findByRole('option', { name: username });
  await user.selectOptions(userSelect(), username);
  await user.click(screen.getByRole('button', { name: 'Search' }));
}

describe('IP Restrictions tab (spec 02 "Account Security", §5, §8)', () => {
  it('starts at Select a User, says "Please select a user first" on Search, then lists the chosen user’s ranges', async () => {
    usersHandler();
    const calls = rangesHandler();
    const { user } = await openTab(MERCHANT_ADMIN);
    expect(await screen.findByText('Select a User')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Search' }));
    expect(await screen.findByText('Please select a user first')).toBeInTheDocument();
    expect(calls.n).toBe(0);
    await searchFor(user, 'alice');
    const table = await screen.findByRole('table', { name: 'IP restrictions of alice' });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['ID', 'Name', 'From IP', 'To IP', 'Actions']);
    expect((await within(table).findByText('Office')).closest('tr')).toHaveTextContent('31Office10.0.0.110.0.0.255');
    await user.click(screen.getByRole('button', { name: 'Clear' }));
    expect(await screen.findByText('Select a User')).toBeInTheDocument();
    expect(userSelect()).toHaveValue('');
  });

  it('filters the users on the server', async () => {
    usersHandler();
    const { user } = await openTab(MERCHANT_ADMIN);
    await within(userSelect()).findByRole('option', { name: 'bob' });
    await user.type(screen.getByRole('searchbox', { name: 'Filter users' }), 'ali');
    await waitFor(() => expect(within(userSelect()).queryByRole('option', { name: 'bob' })).not.toBeInTheDocument());
    expect(within(userSelect()).getByRole('option', { name: 'alice' })).toBeInTheDocument();
  });

  it('says No IP Restrictions for a user without ranges', async () => {
    usersHandler();
    rangesHandler([]);
    const { user } = await openTab(MERCHANT_ADMIN);
    await searchFor(user, 'alice');
    expect(await screen.findByText('No IP Restrictions')).toBeInTheDocument();
  });

  it('offers only the caller when the user list is refused', async () => {
    server.use(http.get(USERS, () => HttpResponse.json({ code: 'permission_denied', message: 'Add Users required' }, { status: 403 })));
    await openTab(IP_ONLY);
    await within(userSelect()).findByRole('option', { name: 'tester' });
    expect(within(userSelect()).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select a user', 'tester']);
  });

  it("toasts 'Failed to fetch IP restrictions: {message}'", async () => {
    usersHandler();
    server.use(http.get(`${USERS}/8/ips`, () => HttpResponse.json({ code: 'internal', message: 'redis down' }, { status: 500 })));
    const { user } = await openTab(MERCHANT_ADMIN);
    await searchFor(user, 'alice');
    expect(await screen.findByText('Failed to fetch IP restrictions: redis down')).toBeInTheDocument();
  });

  it('edits a row in place, checks presence only, confirms and posts the range', async () => {
    usersHandler();
    rangesHandler();
    let sent: unknown;
    let path = '';
    server.use(
      http.post(`${USERS}/ips/:id`, async ({ request, params }) => {
        path = String(params.id);
        sent = await request.json();
        return HttpResponse.json({ ...RANGES[0], name: 'HQ' });
      }),
    );
    const { user } = await openTab(MERCHANT_ADMIN);
    await searchFor(user, 'alice');
    await user.click(await screen.findByRole('button', { name: 'Edit Office' }));
    const name = screen.getByRole('textbox', { name: 'Name' });
    await user.clear(name);
    await user.clear(screen.getByRole('textbox', { name: 'To IP' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Name is required.')).toBeInTheDocument();
    expect(screen.getByText('To IP is required.')).toBeInTheDocument();
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();
    await user.type(name, 'HQ');
    // No IP format check: any text is taken.
    await user.type(screen.getByRole('textbox', { name: 'To IP' }), 'anything');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Update IP Restriction' });
    expect(path).toBe('');
    await user.click(within(dialog).getByRole('button', { name: 'Update' }));
    expect(await screen.findByText('IP restriction updated')).toBeInTheDocument();
    expect(path).toBe('31');
    expect(sent).toEqual({ userId: '8', name: 'HQ', fromIP: '10.0.0.1', toIP: 'anything' });
  });

  it("toasts 'Failed to update IP restriction: {message}' and keeps the row in edit", async () => {
    usersHandler();
    rangesHandler();
    server.use(http.post(`${USERS}/ips/31`, () => HttpResponse.json({ code: 'invalid', message: 'overlapping range' }, { status: 400 })));
    const { user } = await openTab(MERCHANT_ADMIN);
    await searchFor(user, 'alice');
    await user.click(await screen.findByRole('button', { name: 'Edit Office' }));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Update' }));
    expect(await screen.findByText('Failed to update IP restriction: overlapping range')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Name' })).toHaveValue('Office');
  });

  it('deletes a range after a confirmation', async () => {
    usersHandler();
    let deleted = '';
    server.use(
      http.get(`${USERS}/8/ips`, () => HttpResponse.json(deleted ? RANGES.slice(1) : RANGES)),
      http.delete(`${USERS}/ips/:id`, ({ params }) => {
        deleted = String(params.id);
        return HttpResponse.json({});
      }),
    );
    const { user } = await openTab(MERCHANT_ADMIN);
    await searchFor(user, 'alice');
    await user.click(await screen.findByRole('button', { name: 'Delete Office' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Delete IP Restriction' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('IP restriction deleted')).toBeInTheDocument();
    expect(deleted).toBe('31');
    await waitFor(() => expect(screen.queryByText('Office')).not.toBeInTheDocument());
    expect(screen.getByText('VPN')).toBeInTheDocument();
  });

  it("toasts 'Failed to delete IP restriction: {message}'", async () => {
    usersHandler();
    rangesHandler();
    server.use(http.delete(`${USERS}/ips/31`, () => HttpResponse.json({ code: 'internal', message: 'nope' }, { status: 500 })));
    const { user } = await openTab(MERCHANT_ADMIN);
    await searchFor(user, 'alice');
    await user.click(await screen.findByRole('button', { name: 'Delete Office' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Failed to delete IP restriction: nope')).toBeInTheDocument();
    expect(screen.getByText('Office')).toBeInTheDocument();
  });
});
