import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { session as consoleSession } from '@paygate/sdk';
import { locationOf } from '@paygate/devkit/testing';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, type TestUser } from '@paygate/devkit/testing/tokens';
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MERCHANTS, renderSecurity, session } from '../../../testing/fixtures';

const SUPPORT: TestUser = { username: 'support', roles: ['Support'] };
/** A user-management user of merchant 1 (Add Users and Edit User): it sees and ends its merchant's sessions. */
const MERCHANT_ADMIN: TestUser = { username: 'ma-user', roles: ['Merchant Admin'], merchantIds: [1] };
/** A custom role that lists users (Add Users) but may not edit them. */
const USER_LISTER: TestUser = { username: 'lister', roles: [], permissions: ['Add Users'], merchantIds: [1] };
const SESSIONS = `${GATEWAY}/api/v1/user-sessions/active`;

/** sessionsHandler answers the list and records each call's query. */
function sessionsHandler(sessions = [session()], extra: { totalCount?: string; totalPages?: number } = {}) {
  const queries: URLSearchParams[] = [];
  server.use(
    http.get(SESSIONS, ({ request }) => {
      const q = new URL(request.url).searchParams;
      queries.push(q);
      return HttpResponse.json({ sessions, totalCount: extra.totalCount ?? String(sessions.length), currentPage: Number(q.get('page')), totalPages: extra.totalPages ?? 1 });
    }),
  );
  return queries;
}

const table = () => screen.findByRole('table', { name: 'Active sessions' });
const rowOf = async (text: string) => (await screen.findByText(text)).closest('tr') as HTMLElement;

afterEach(() => {
  vi.useRealTimers();
});

describe('Active Sessions tab (spec 02 "Account Security", §4, §8, §9)', () => {
  it.each([
    ['an admin', ADMIN, 2],
    ['a merchant', MERCHANT_USER, 2],
    ['a support user', SUPPORT, 1],
  ] as const)('refreshes every 30 s for admins and merchants: %s', async (_, who, calls) => {
    // Only the interval clock is faked: rendering and requests run in real time.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const queries = sessionsHandler([session({ userId: '7', username: 'tester', isCurrent: true })]);
    renderSecurity(who);
    await screen.findByText('tester');
    expect(queries).toHaveLength(1);
    await act(async () => {
      vi.advanceTimersByTime(29_000);
    });
    expect(queries).toHaveLength(1);
    await act(async () => {
      vi.advanceTimersByTime(1_000);
    });
    await waitFor(() => expect(queries).toHaveLength(calls));
    // A support user's list stays as it was.
    await new Promise((r) => setTimeout(r, 50));
    expect(queries).toHaveLength(calls);
  });

  it('lists sessions under User, IP, Device, Login Time, Expires, Actions, the own one tagged Current, 10 per page', async () => {
    const queries = sessionsHandler([
      session(),
      session({ id: '102', username: 'tester', userIp: '10.0.0.7', isCurrent: true, refreshTokenExpiryUtc: new Date(Date.now() + 5 * 3_600_000 - 60_000).toISOString() }),
      session({ id: '103', username: 'bob', userAgent: 'curl-like-agent/7.1 (custom build for tests)', refreshTokenExpiryUtc: '2020-01-01T00:00:00Z' }),
    ]);
    renderSecurity(MERCHANT_ADMIN);
    const t = await table();
    expect(within(t).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['User', 'IP', 'Device', 'Login Time', 'Expires', 'Actions']);
    const alice = await rowOf('alice');
    expect(within(alice).getByText('Chrome on Windows')).toBeInTheDocument();
    expect(within(alice).getByText('Jan 5, 2026, 10:00:00 (UTC+0)')).toBeInTheDocument();
    expect(within(alice).getByText('3d left')).toHaveAttribute('data-palette', 'green');
    expect(within(alice).queryByText('Current')).not.toBeInTheDocument();
    const own = await rowOf('tester');
    expect(within(own).getByText('Current')).toBeInTheDocument();
    expect(within(own).getByText('5h left')).toHaveAttribute('data-palette', 'orange');
    const bob = await rowOf('bob');
    expect(within(bob).getByText('curl-like-agent/7.1 (custom bu...')).toBeInTheDocument();
    expect(within(bob).getByText('Expired')).toBeInTheDocument();
    expect(queries[0]?.get('page')).toBe('1');
    expect(queries[0]?.get('take')).toBe('10');
    expect(queries[0]?.has('merchantId')).toBe(false);
  });

  it('gives admins a merchant dropdown (All Merchants) that filters by merchantId', async () => {
    const queries = sessionsHandler();
    const { user } = renderSecurity(ADMIN);
    await table();
    const merchant = screen.getByRole('combobox', { name: 'Merchant' });
    expect(within(merchant).getByRole('option', { name: 'All Merchants' })).toBeInTheDocument();
    await within(merchant).findByRole('option', { name: MERCHANTS[1]!.name });
    await user.selectOptions(merchant, '2');
    await waitFor(() => expect(queries.at(-1)?.get('merchantId')).toBe('2'));
  });

  it('hides the merchant dropdown from non-admins', async () => {
    sessionsHandler();
    renderSecurity(MERCHANT_USER);
    await table();
    expect(screen.queryByRole('combobox', { name: 'Merchant' })).not.toBeInTheDocument();
  });

  it('searches and pages on the server', async () => {
    const queries = sessionsHandler([session()], { totalCount: '45', totalPages: 5 });
    const { user } = renderSecurity(MERCHANT_ADMIN);
    await table();
    await user.click(screen.getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(queries.at(-1)?.get('page')).toBe('2'));
    expect(screen.getByText('Page 2 of 5')).toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Rows per page' }), '50');
    await waitFor(() => expect(queries.at(-1)?.get('take')).toBe('50'));
    expect(queries.at(-1)?.get('page')).toBe('1');
    expect(within(screen.getByRole('combobox', { name: 'Rows per page' })).getAllByRole('option').map((o) => o.textContent)).toEqual([
      '5 / page',
      '10 / page',
      '20 / page',
      '50 / page',
    ]);
    await user.type(screen.getByRole('searchbox', { name: 'Search sessions' }), 'alice');
    await waitFor(() => expect(queries.at(-1)?.get('search')).toBe('alice'));
  });

  it('terminates another session after a confirmation and reloads the list', async () => {
    const queries = sessionsHandler();
    let deleted = '';
    server.use(
      http.delete(`${GATEWAY}/api/v1/user-sessions/:id`, ({ params }) => {
        deleted = String(params.id);
        return HttpResponse.json({});
      }),
    );
    const { user } = renderSecurity(MERCHANT_ADMIN);
    await user.click(await screen.findByRole('button', { name: 'Terminate session of alice from 10.0.0.8' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Terminate Session' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(deleted).toBe('');
    await user.click(screen.getByRole('button', { name: 'Terminate session of alice from 10.0.0.8' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Terminate' }));
    expect(await screen.findByText('Session terminated')).toBeInTheDocument();
    expect(deleted).toBe('101');
    // The list is read again.
    await waitFor(() => expect(queries.length).toBeGreaterThan(1));
  });

  it('logs the user out and goes to /login when they terminate their own session', async () => {
    sessionsHandler([session({ id: '102', username: 'support', isCurrent: true })]);
    let loggedOut = false;
    server.use(
      http.delete(`${GATEWAY}/api/v1/user-sessions/102`, () => HttpResponse.json({})),
      http.post(`${AUTH}/api/v1/logout`, () => {
        loggedOut = true;
        return HttpResponse.json({});
      }),
    );
    const { user, router } = renderSecurity(SUPPORT);
    await user.click(await screen.findByRole('button', { name: /^Terminate session of support/ }));
    const dialog = await screen.findByRole('alertdialog');
    expect(within(dialog).getByText('This is your current session. Terminating it will log you out. Continue?')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Terminate' }));
    await waitFor(() => expect(locationOf(router)).toBe('/login'));
    expect(loggedOut).toBe(true);
    expect(consoleSession.getState().accessToken).toBeNull();
  });

  it("says 'Failed to terminate session' when the server refuses", async () => {
    sessionsHandler();
    server.use(http.delete(`${GATEWAY}/api/v1/user-sessions/101`, () => HttpResponse.json({ code: 'internal', message: 'boom' }, { status: 500 })));
    const { user } = renderSecurity(MERCHANT_ADMIN);
    await user.click(await screen.findByRole('button', { name: 'Terminate session of alice from 10.0.0.8' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Terminate' }));
    expect(await screen.findByText('Failed to terminate session')).toBeInTheDocument();
    expect(screen.getByText('alice')).toBeInTheDocument();
  });

  it("pins the user's own Current session first, wherever the page puts it", async () => {
    sessionsHandler([
      session({ id: '201', username: 'alice' }),
      session({ id: '202', username: 'bob', userId: '9' }),
      session({ id: '203', userId: '7', username: 'tester', isCurrent: true }),
      session({ id: '204', userId: '7', username: 'tester', userIp: '10.0.0.44' }),
    ]);
    renderSecurity(MERCHANT_ADMIN);
    const t = await table();
    await within(t).findByText('bob');
    const body = within(t).getAllByRole('row').slice(1);
    expect(within(body[0]!).getByText('Current')).toBeInTheDocument();
    expect(body.map((r) => within(r).getAllByRole('cell')[1]?.textContent)).toEqual(['10.0.0.8', '10.0.0.8', '10.0.0.8', '10.0.0.44']);
    expect(body.map((r) => within(r).getAllByRole('cell')[0]?.textContent)).toEqual(['testerCurrent', 'alice', 'bob', 'tester']);
  });

  it.each([
    ['a support user (no user-management permission)', SUPPORT],
    ['a merchant (no user-management permission)', MERCHANT_USER],
  ] as const)("shows %s only its own sessions, and no way to end another's", async (_, who) => {
    sessionsHandler([session(), session({ id: '202', userId: '7', username: who.username ?? 'tester', isCurrent: true })]);
    renderSecurity(who);
    const t = await table();
    await within(t).findByText('Current');
    expect(within(t).queryByText('alice')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Terminate session of alice/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: /^Terminate session of / })).toBeInTheDocument();
  });

  it("lists others' sessions with Add Users, but ends only its own without Edit User", async () => {
    sessionsHandler([session(), session({ id: '202', userId: '7', username: 'tester', isCurrent: true }), session({ id: '203', userId: '7', username: 'tester', userIp: '10.0.0.9' })]);
    renderSecurity(USER_LISTER);
    expect(await screen.findByText('alice')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Terminate session of alice from 10.0.0.8' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Terminate session of tester from 10.0.0.9' })).toBeInTheDocument();
  });

  it("shows 'Failed to load sessions', and 'Failed to fetch sessions' when Refresh fails", async () => {
    server.use(http.get(SESSIONS, () => HttpResponse.json({ code: 'internal', message: 'database down' }, { status: 500 })));
    const { user } = renderSecurity(SUPPORT);
    expect(await screen.findByText('Failed to load sessions')).toBeInTheDocument();
    expect(screen.getByText('database down')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Failed to fetch sessions')).toBeInTheDocument();
  });

  it('reads a 404 or a "not found" message as no sessions', async () => {
    server.use(http.get(SESSIONS, () => HttpResponse.json({ code: 'not_found', message: 'Sessions not found' }, { status: 404 })));
    renderSecurity(SUPPORT);
    expect(await screen.findByText('No active sessions.')).toBeInTheDocument();
    expect(screen.queryByText('Failed to load sessions')).not.toBeInTheDocument();
  });
});
