import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GATEWAY, server, TEST_CONFIG } from '@paygate/devkit/testing/msw';
import { makeToken, claimsFor } from '@paygate/devkit/testing/tokens';
import { ApiClient } from './api-client';
import { ApiError, errorMessage } from './api-error';
import { CONFIRMATION_HEADER, setConfirmationHandler } from './confirmation';
import { SessionStore } from './session';
import { writeStored } from './storage';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

function client() {
  writeStored('accessToken', makeToken(claimsFor({ username: 'admin', roles: ['Admin'] }), 300, NOW));
  writeStored('refreshToken', 'refresh-1');
  return new ApiClient({ session: new SessionStore(), config: () => TEST_CONFIG, now: () => NOW });
}

const CHALLENGE = { action: '{"action":"fee.update"}', request: 'CgEx' };
const REQUIRED = { code: 'confirmation_required', message: 'This change needs your confirmation.', confirmation: CHALLENGE };

/** A fee update that answers 428 without the confirmation header; records each call's header. */
function feeHandler(seen: (string | null)[], bodies: unknown[]) {
  return http.put(`${GATEWAY}/api/v1/fees/12`, async ({ request }) => {
    const header = request.headers.get(CONFIRMATION_HEADER);
    seen.push(header);
    bodies.push(await request.json());
    return header === 'tok-1' ? HttpResponse.json({ id: 12, ok: true }) : HttpResponse.json(REQUIRED, { status: 428 });
  });
}

afterEach(() => setConfirmationHandler(null));

describe('ApiClient confirmation of sensitive calls (issue 28)', () => {
  it('on a token, repeats the identical call once with the confirmation header', async () => {
    const api = client();
    const seen: (string | null)[] = [];
    const bodies: unknown[] = [];
    const handler = vi.fn().mockResolvedValue('tok-1');
    setConfirmationHandler(handler);
    server.use(feeHandler(seen, bodies));
    await expect(api.request('gateway', '/api/v1/fees/12', { method: 'PUT', body: { percent: '2.5' } })).resolves.toEqual({ id: 12, ok: true });
    expect(handler).toHaveBeenCalledExactlyOnceWith(CHALLENGE);
    expect(seen).toEqual([null, 'tok-1']);
    expect(bodies).toEqual([{ percent: '2.5' }, { percent: '2.5' }]);
  });

  it('on an approval request, rejects with an ApiError flagged approvalRequested', async () => {
    const api = client();
    const seen: (string | null)[] = [];
    setConfirmationHandler(() => Promise.resolve({ approvalRequested: '77' }));
    server.use(feeHandler(seen, []));
    const err = await api.request('gateway', '/api/v1/fees/12', { method: 'PUT', body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).approvalRequested).toBe('77');
    expect((err as ApiError).cancelled).toBe(false);
    // The confirmation dialog says "Sent for approval" itself; the page's error toast stays silent.
    expect((err as ApiError).message).toMatch(/^Sent for approval/);
    expect(errorMessage(err, 'Failed')).toBe('');
    expect(seen).toEqual([null]);
  });

  it('on cancel, rejects with a cancelled ApiError the notify helpers stay silent about', async () => {
    const api = client();
    setConfirmationHandler(() => Promise.resolve(null));
    server.use(feeHandler([], []));
    const err = await api.request('gateway', '/api/v1/fees/12', { method: 'PUT', body: {} }).catch((e: unknown) => e);
    expect((err as ApiError).cancelled).toBe(true);
    expect(errorMessage(err, 'Failed to update the fee')).toBe('');
  });

  it('does not ask twice: a repeated call answering 428 again fails as it is', async () => {
    const api = client();
    const handler = vi.fn().mockResolvedValue('tok-wrong');
    setConfirmationHandler(handler);
    const seen: (string | null)[] = [];
    server.use(feeHandler(seen, []));
    const err = await api.request('gateway', '/api/v1/fees/12', { method: 'PUT', body: {} }).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(428);
    expect((err as ApiError).code).toBe('confirmation_required');
    expect(handler).toHaveBeenCalledOnce();
    expect(seen).toEqual([null, 'tok-wrong']);
  });

  it('leaves calls that do not answer 428 alone, and a 428 without a handler', async () => {
    const api = client();
    const handler = vi.fn();
    setConfirmationHandler(handler);
    server.use(http.get(`${GATEWAY}/api/v1/fees`, () => HttpResponse.json([])));
    await expect(api.get('gateway', '/api/v1/fees')).resolves.toEqual([]);
    expect(handler).not.toHaveBeenCalled();
    setConfirmationHandler(null);
    server.use(feeHandler([], []));
    await expect(api.request('gateway', '/api/v1/fees/12', { method: 'PUT', body: {} })).rejects.toMatchObject({ status: 428 });
  });
});
