import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { AUTH, GATEWAY, server, TEST_CONFIG } from '@paygate/devkit/testing/msw';
import { makeToken, claimsFor } from '@paygate/devkit/testing/tokens';
import { ApiClient, filenameFromDisposition, isExemptPath } from './api-client';
import { ApiError } from './api-error';
import { SessionStore } from './session';
import { readStored, writeStored } from './storage';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const claims = claimsFor({ username: 'admin', roles: ['Admin'] });

/** A session whose access token expires `ttl` seconds after NOW, wired to a fake router. */
function setup(ttl: number, { refreshToken = 'refresh-1', route = '/files?page=2' }: { refreshToken?: string | null; route?: string } = {}) {
  const access = makeToken(claims, ttl, NOW);
  // As after a page load: the tokens come from storage.
  writeStored('accessToken', access);
  writeStored('refreshToken', refreshToken);
  const session = new SessionStore();
  const visited: string[] = [];
  session.bindNavigation({ current: () => route, go: (to) => visited.push(to) });
  const api = new ApiClient({ session, config: () => TEST_CONFIG, now: () => NOW });
  return { session, api, visited, access };
}

/** refreshHandler answers refresh-token calls with a fresh pair and counts them. */
function refreshHandler(counter: { n: number }, delayMs = 20) {
  return http.post(`${AUTH}/api/v1/refresh-token`, async ({ request }) => {
    counter.n++;
    const body = (await request.json()) as { refreshToken?: string };
    await new Promise((r) => setTimeout(r, delayMs));
    return HttpResponse.json({
      accessToken: makeToken({ ...claims, jti: `refreshed-${counter.n}` }, 300, NOW),
      refreshToken: `${body.refreshToken}-next`,
      expiresIn: 300,
      tokenType: 'Bearer',
    });
  });
}

describe('ApiClient token refresh (spec 01 §4)', () => {
  it('sends the bearer token and parses JSON', async () => {
    const { api, access } = setup(300);
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants`, ({ request }) =>
        request.headers.get('Authorization') === `Bearer ${access}` ? HttpResponse.json([{ id: 1, name: 'Acme Games', hash: 'h' }]) : new HttpResponse(null, { status: 401 }),
      ),
    );
    await expect(api.get('gateway', '/api/v1/merchants')).resolves.toEqual([{ id: 1, name: 'Acme Games', hash: 'h' }]);
  });

  it('refreshes exactly once for many concurrent calls when the token expires within 30 s', async () => {
    const { api, session } = setup(20);
    const refreshes = { n: 0 };
    const seen: string[] = [];
    server.use(
      refreshHandler(refreshes),
      http.get(`${GATEWAY}/api/v1/merchants`, ({ request }) => {
        seen.push(request.headers.get('Authorization') ?? '');
        return HttpResponse.json([]);
      }),
    );
    await Promise.all(Array.from({ length: 8 }, () => api.get('gateway', '/api/v1/merchants')));
    expect(refreshes.n).toBe(1);
    expect(seen).toHaveLength(8);
    const fresh = `Bearer ${session.getState().accessToken}`;
    expect(seen.every((h) => h === fresh)).toBe(true);
    expect(session.getState().refreshToken).toBe('refresh-1-next');
    expect(readStored('refreshToken')).toBe('refresh-1-next');
  });

  it('does not refresh a token with more than 30 s left', async () => {
    const { api } = setup(31);
    const refreshes = { n: 0 };
    server.use(refreshHandler(refreshes), http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])));
    await api.get('gateway', '/api/v1/merchants');
    expect(refreshes.n).toBe(0);
  });

  it('retries a call once after a refresh when it gets a 401', async () => {
    const { api, access } = setup(300);
    const refreshes = { n: 0 };
    let calls = 0;
    server.use(
      refreshHandler(refreshes),
      http.get(`${GATEWAY}/api/v1/merchants`, ({ request }) => {
        calls++;
        return request.headers.get('Authorization') === `Bearer ${access}`
          ? HttpResponse.json({ code: 'unauthenticated', message: 'Token revoked' }, { status: 401 })
          : HttpResponse.json([{ id: 2, name: 'Blue Harbor Shop', hash: 'h2' }]);
      }),
    );
    await expect(api.get('gateway', '/api/v1/merchants')).resolves.toHaveLength(1);
    expect(calls).toBe(2);
    expect(refreshes.n).toBe(1);
  });

  it('retries only once: a second 401 surfaces as an ApiError', async () => {
    const { api, session } = setup(300);
    const refreshes = { n: 0 };
    let calls = 0;
    server.use(
      refreshHandler(refreshes),
      http.get(`${GATEWAY}/api/v1/merchants`, () => {
        calls++;
        return HttpResponse.json({ code: 'unauthenticated', message: 'Nope' }, { status: 401 });
      }),
    );
    const err = await api.get('gateway', '/api/v1/merchants').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 401, code: 'unauthenticated', message: 'Nope' });
    expect(calls).toBe(2);
    expect(refreshes.n).toBe(1);
    expect(session.getState().accessToken).not.toBeNull();
  });

  it('logs out and remembers the route when the refresh fails', async () => {
    const { api, session, visited } = setup(10, { route: '/files?page=2' });
    server.use(
      http.post(`${AUTH}/api/v1/refresh-token`, () => HttpResponse.json({ code: 'internal', message: 'boom' }, { status: 500 })),
    );
    await expect(api.get('gateway', '/api/v1/merchants')).rejects.toMatchObject({ status: 500 });
    expect(session.getState()).toEqual({ accessToken: null, refreshToken: null, user: null });
    expect(readStored('accessToken')).toBeNull();
    expect(readStored('refreshToken')).toBeNull();
    expect(visited).toEqual(['/login']);
    expect(session.takeRedirect()).toBe('/files?page=2');
  });

  it('logs out when the 401 comes from the refresh call itself, once for all waiting calls', async () => {
    const { api, session, visited } = setup(10, { route: '/providers' });
    let refreshes = 0;
    server.use(
      http.post(`${AUTH}/api/v1/refresh-token`, () => {
        refreshes++;
        return HttpResponse.json({ code: 'unauthenticated', message: 'Refresh token reused' }, { status: 401 });
      }),
    );
    const results = await Promise.allSettled([api.get('gateway', '/a'), api.get('gateway', '/b'), api.get('gateway', '/c')]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(refreshes).toBe(1);
    expect(visited).toEqual(['/login']);
    expect(session.getState().user).toBeNull();
    expect(session.takeRedirect()).toBe('/providers');
  });

  it('logs out on a 401 when there is no refresh token', async () => {
    const { api, session, visited } = setup(300, { refreshToken: null, route: '/balances' });
    expect(session.getState().refreshToken).toBeNull();
    server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => new HttpResponse(null, { status: 401 })));
    await expect(api.get('gateway', '/api/v1/merchants')).rejects.toMatchObject({ status: 401 });
    expect(visited).toEqual(['/login']);
    expect(session.takeRedirect()).toBe('/balances');
  });

  it('gives login, refresh-token and passkey calls no refresh handling', async () => {
    const { api, visited } = setup(5);
    const refreshes = { n: 0 };
    server.use(
      refreshHandler(refreshes),
      http.post(`${AUTH}/api/v1/login`, () => HttpResponse.json({ code: 'unauthenticated', message: 'Invalid username or password' }, { status: 401 })),
      http.post(`${AUTH}/api/v1/webauthn/authenticate/options`, () => new HttpResponse(null, { status: 401 })),
    );
    await expect(api.post('auth', '/api/v1/login', { username: 'a', password: 'b' })).rejects.toMatchObject({
      status: 401,
      message: 'Invalid username or password',
    });
    await expect(api.post('auth', '/api/v1/webauthn/authenticate/options', { username: 'a' })).rejects.toMatchObject({ status: 401 });
    expect(refreshes.n).toBe(0);
    expect(visited).toEqual([]);
  });

  it("refreshes before a signed-in user's passkey calls (list, register, remove)", async () => {
    const { api } = setup(5);
    const refreshes = { n: 0 };
    server.use(
      refreshHandler(refreshes),
      http.get(`${AUTH}/api/v1/webauthn/credentials`, () => HttpResponse.json([])),
    );
    await expect(api.get('auth', '/api/v1/webauthn/credentials')).resolves.toEqual([]);
    expect(refreshes.n).toBe(1);
  });

  it('sends cookies with the sign-in only (the device cookie), never with other calls', async () => {
    const { api } = setup(300);
    const seen: Record<string, RequestCredentials> = {};
    server.use(
      http.post(`${AUTH}/api/v1/login`, ({ request }) => {
        seen.login = request.credentials;
        return HttpResponse.json({ accessToken: 'a', refreshToken: 'r', expiresIn: 300, tokenType: 'Bearer' });
      }),
      http.get(`${GATEWAY}/api/v1/merchants`, ({ request }) => {
        seen.merchants = request.credentials;
        return HttpResponse.json([]);
      }),
    );
    await api.post('auth', '/api/v1/login', { username: 'a', password: 'b' });
    await api.get('gateway', '/api/v1/merchants');
    expect(seen).toEqual({ login: 'include', merchants: 'same-origin' });
  });

  it('classifies exempt paths', () => {
    expect(isExemptPath('/api/v1/login')).toBe(true);
    expect(isExemptPath('/api/v1/refresh-token')).toBe(true);
    expect(isExemptPath('/api/v1/webauthn/authenticate/options')).toBe(true);
    expect(isExemptPath('/api/v1/webauthn/authenticate/complete')).toBe(true);
    // A signed-in user's passkey calls refresh like any other call.
    expect(isExemptPath('/api/v1/webauthn/register/options')).toBe(false);
    expect(isExemptPath('/api/v1/webauthn/credentials/5')).toBe(false);
    expect(isExemptPath('/api/v1/logout')).toBe(false);
    expect(isExemptPath('/api/v1/validate-token')).toBe(false);
  });
});

describe('ApiError', () => {
  it('carries status, code, message and Retry-After', async () => {
    const { api } = setup(300);
    server.use(
      http.post(`${AUTH}/api/v1/login`, () =>
        HttpResponse.json({ code: 'too_many_requests', message: 'Too many attempts' }, { status: 429, headers: { 'Retry-After': '30' } }),
      ),
    );
    const err = await api.post('auth', '/api/v1/login', {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: 'too_many_requests', message: 'Too many attempts', retryAfter: 30 });
  });

  it('turns a network failure into status 0', async () => {
    const { api } = setup(300);
    server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.error()));
    await expect(api.get('gateway', '/api/v1/merchants')).rejects.toMatchObject({ status: 0, code: 'network' });
  });
});

describe('ApiClient.download', () => {
  it('sends the bearer token, refreshes on a 401 like any call, and answers the bytes with their type and file name', async () => {
    const { api, session } = setup(300);
    const refreshes = { n: 0 };
    const seen: string[] = [];
    server.use(
      refreshHandler(refreshes),
      http.get(`${GATEWAY}/api/v1/files/42`, ({ request }) => {
        const auth = request.headers.get('Authorization') ?? '';
        seen.push(auth);
        if (seen.length === 1) return new HttpResponse(null, { status: 401 });
        return new HttpResponse('id,amount\n1,10.00\n', {
          headers: { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="transactions-20261125.csv"' },
        });
      }),
    );
    const file = await api.download('gateway', '/api/v1/files/42');
    expect(refreshes.n).toBe(1);
    expect(seen[1]).toBe(`Bearer ${session.getState().accessToken}`);
    expect(file.filename).toBe('transactions-20261125.csv');
    expect(file.contentType).toBe('text/csv');
    expect(await file.blob.text()).toBe('id,amount\n1,10.00\n');
  });

  it('surfaces a refused download as an ApiError with the server message', async () => {
    const { api } = setup(300);
    server.use(http.get(`${GATEWAY}/api/v1/files/7`, () => HttpResponse.json({ code: 'conflict', message: 'File 7 is not ready yet' }, { status: 409 })));
    await expect(api.download('gateway', '/api/v1/files/7')).rejects.toMatchObject({ status: 409, message: 'File 7 is not ready yet' });
  });

  it.each([
    [null, null],
    ['attachment', null],
    ['attachment; filename="a b.csv"', 'a b.csv'],
    ['attachment; filename=plain.xlsx', 'plain.xlsx'],
    ["attachment; filename=\"fallback.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf", 'résumé.pdf'],
    ['attachment; filename="../../etc/passwd"', '.._.._etc_passwd'],
    ['attachment; filename="q\\"uote.csv"', 'q"uote.csv'],
  ])('reads the file name of Content-Disposition %s', (header, name) => {
    expect(filenameFromDisposition(header)).toBe(name);
  });
});
