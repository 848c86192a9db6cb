import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { AUTH, server, TEST_CONFIG } from '@paygate/devkit/testing/msw';
import { claimsFor, makeToken, tokensFor } from '@paygate/devkit/testing/tokens';
import { hasPermission } from './access';
import { meets, seesAllMerchants } from './requirement';
import { ApiClient } from './api-client';
import { createAuth } from './auth';
import { darkMode, selectedMerchant, selectedTimezone } from './preferences';
import { SessionStore } from './session';
import { readStored, SESSION_KEYS, STORAGE_KEYS } from './storage';

function setup() {
  const session = new SessionStore();
  const visited: string[] = [];
  session.bindNavigation({ current: () => '/login', go: (to) => visited.push(to) });
  const api = new ApiClient({ session, config: () => TEST_CONFIG });
  return { session, api, auth: createAuth(api, session), visited };
}

describe('session and auth', () => {
  it('login stores the token pair and the last username, and reads the user from the JWT claims', async () => {
    const { auth, session } = setup();
    const pair = tokensFor({ username: 'merchant', roles: ['Merchant'], merchantIds: [1] });
    server.use(
      http.post(`${AUTH}/api/v1/login`, async ({ request }) => {
        expect(await request.json()).toEqual({ username: 'merchant', password: 'paygate-demo' });
        return HttpResponse.json({ ...pair, expiresIn: 300, tokenType: 'Bearer' });
      }),
    );
    const user = await auth.login('merchant', 'paygate-demo');
    expect(user).toMatchObject({ id: '7', username: 'merchant', roles: ['Merchant'], merchantIds: [1], isTemporaryPassword: false });
    expect(session.getState()).toMatchObject(pair);
    expect(readStored('accessToken')).toBe(pair.accessToken);
    expect(readStored('refreshToken')).toBe(pair.refreshToken);
    expect(readStored('lastUsername')).toBe('merchant');
  });

  it('fetchUser takes the user from validate-token', async () => {
    const { auth, session } = setup();
    session.signIn(tokensFor({ username: 'support', roles: ['Support'] }));
    server.use(
      http.get(`${AUTH}/api/v1/validate-token`, () =>
        HttpResponse.json({
          valid: true,
          user: { id: '2', username: 'support', roles: ['Support'], permissions: ['Get Transactions'], merchantIds: [1, 2, 3], globalScope: true },
        }),
      ),
    );
    await auth.fetchUser();
    expect(session.getState().user).toEqual({
      id: '2',
      username: 'support',
      roles: ['Support'],
      permissions: ['Get Transactions'],
      merchantIds: [1, 2, 3],
      isTemporaryPassword: false,
      globalScope: true,
    });
  });

  it('logout calls the server and clears the local data', async () => {
    const { auth, session } = setup();
    const pair = tokensFor({ username: 'admin', roles: ['Admin'] });
    session.signIn(pair);
    let bearer = '';
    server.use(
      http.post(`${AUTH}/api/v1/logout`, ({ request }) => {
        bearer = request.headers.get('Authorization') ?? '';
        return HttpResponse.json({});
      }),
    );
    await auth.logout();
    expect(bearer).toBe(`Bearer ${pair.accessToken}`);
    expect(session.getState()).toEqual({ accessToken: null, refreshToken: null, user: null });
    expect(readStored('accessToken')).toBeNull();
  });

  it('logout clears the local data even when the server call fails', async () => {
    const { auth, session } = setup();
    session.signIn(tokensFor({ username: 'admin', roles: ['Admin'] }));
    server.use(http.post(`${AUTH}/api/v1/logout`, () => HttpResponse.error()));
    await auth.logout();
    expect(session.getState().accessToken).toBeNull();
    expect(readStored('refreshToken')).toBeNull();
  });

  it('an expired session remembers its route; a call refused after the session ended does not replace it', async () => {
    const session = new SessionStore();
    let current = '/account-security?tab=two-factor';
    const visited: string[] = [];
    session.bindNavigation({ current: () => current, go: (to) => visited.push(to) });
    session.signIn(tokensFor({ username: 'admin', roles: ['Admin'] }));
    session.expire();
    expect(visited).toEqual(['/login']);
    expect(session.takeRedirect()).toBe('/account-security?tab=two-factor');

    // The server's logout answers while a call of the page is refused with 401.
    session.signIn(tokensFor({ username: 'admin', roles: ['Admin'] }));
    const api = new ApiClient({ session, config: () => TEST_CONFIG });
    const auth = createAuth(api, session);
    server.use(
      http.post(`${AUTH}/api/v1/logout`, () => {
        session.expire();
        return HttpResponse.json({});
      }),
    );
    await auth.logout();
    // Once the session is gone, a late refusal on another route changes nothing.
    current = '/fees';
    session.expire();
    expect(session.takeRedirect()).toBe('/account-security?tab=two-factor');
  });

  it('remembers a redirect target in memory, never / or /login', () => {
    const { session } = setup();
    session.rememberRedirect('/');
    expect(session.takeRedirect()).toBeNull();
    session.rememberRedirect('/login?x=1');
    expect(session.takeRedirect()).toBeNull();
    session.rememberRedirect('/transactions/42?tab=logs');
    expect(session.takeRedirect()).toBe('/transactions/42?tab=logs');
    expect(session.takeRedirect()).toBeNull();
    expect(Object.keys(localStorage)).toEqual([]);
  });
});

describe('browser-stored data (spec 01 §3)', () => {
  it('uses exactly the listed keys (and the dashboard auto-refresh flag of issue 14, the export columns of issue 16)', () => {
    expect(Object.values(STORAGE_KEYS).sort()).toEqual(
      ['accessToken', 'hasPasskey', 'darkMode', 'lastUsername', 'passkeyUsers', 'refreshToken', 'selectedMerchant', 'selectedTimezone', 'skipPasskeySetup', 'dashboardAutoRefresh', 'exportColumns'].sort(),
    );
  });

  it('stores the theme as a flag, the timezone as a zone id and the merchant filter as an id', () => {
    darkMode.set(true);
    selectedTimezone.set('Etc/GMT-8');
    selectedMerchant.set(3);
    expect(localStorage.getItem('darkMode')).toBe('true');
    expect(localStorage.getItem('selectedTimezone')).toBe('Etc/GMT-8');
    expect(localStorage.getItem('selectedMerchant')).toBe('3');
    selectedMerchant.set(null);
    darkMode.set(false);
    selectedTimezone.set('UTC');
    expect(localStorage.getItem('selectedMerchant')).toBeNull();
    // sessionStorage holds only the Logout mark (issue 25), and nothing of these.
    const tabKeys = Array.from({ length: sessionStorage.length }, (_, i) => sessionStorage.key(i));
    expect(tabKeys.every((k) => k === SESSION_KEYS.loggedOut)).toBe(true);
  });

  it('keeps only the Logout mark in sessionStorage', () => {
    expect(Object.values(SESSION_KEYS)).toEqual(['loggedOut']);
  });
});

describe('permission and requirement helpers', () => {
  const token = makeToken(claimsFor({ roles: ['Merchant Admin'] }));
  const user = new SessionStore();
  user.signIn({ accessToken: token, refreshToken: 'r' });
  const u = user.getState().user;

  it('read the claims', () => {
    expect(hasPermission(u, 'Edit User')).toBe(true);
    expect(hasPermission(u, 'Jobs Access')).toBe(false);
    expect(u?.globalScope).toBe(false);
    expect(meets(u, 'callbacksAndValidation')).toBe(true);
    expect(seesAllMerchants(u)).toBe(false);
    expect(hasPermission(null, 'Edit User')).toBe(false);
    expect(meets(null, 'adminOrMerchant')).toBe(false);
  });

  it('read the scope flag of the token, never the role name', () => {
    const as = (claims: Parameters<typeof claimsFor>[0]) => {
      const s = new SessionStore();
      s.signIn({ accessToken: makeToken(claimsFor(claims)), refreshToken: 'r' });
      return s.getState().user;
    };
    expect(seesAllMerchants(as({ roles: ['Admin'] }))).toBe(true);
    expect(meets(as({ roles: ['Support'] }), 'adminOrMerchant')).toBe(false);
    for (const r of ['Merchant', 'Merchant Admin', 'Merchant Finance Manager', 'Merchant Support'] as const) {
      expect(meets(as({ roles: [r] }), 'adminOrMerchant'), r).toBe(true);
    }
    // A role named Admin without the flag is not admin-wide; a custom role with it is.
    expect(seesAllMerchants(as({ roles: ['Admin'], globalScope: false }))).toBe(false);
    expect(seesAllMerchants(as({ roles: ['Operators'], permissions: ['Edit Collab'], globalScope: true }))).toBe(true);
  });
});
