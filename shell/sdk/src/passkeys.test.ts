import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUTH, server } from '@paygate/devkit/testing/msw';
import { tokensFor } from '@paygate/devkit/testing/tokens';
import {
  assertion,
  attestation,
  AUTHENTICATION_OPTIONS,
  browserError,
  REGISTRATION_OPTIONS,
  stubWebAuthn,
  unstubWebAuthn,
  type FakeWebAuthn,
} from '@paygate/devkit/testing/webauthn';
import { ApiError } from './api-error';
import { session } from './console';
import {
  deletePasskey,
  hasPasskeyHint,
  justSignedInWithPassword,
  listPasskeys,
  loginErrorMessage,
  notePasswordSignIn,
  passkeySetupSkipped,
  passkeysSupported,
  passkeyUsers,
  platformAuthenticatorAvailable,
  registerPasskey,
  registrationErrorMessage,
  rememberPasskey,
  signInWithPasskey,
  skipPasskeySetup,
  SKIP_PASSKEY_SETUP_MS,
  takePasswordSignIn,
} from './passkeys';

const DAY = 24 * 60 * 60 * 1000;

afterEach(() => {
  unstubWebAuthn();
  takePasswordSignIn('');
});

describe('passkey support', () => {
  it('is absent in a browser without WebAuthn', async () => {
    expect(passkeysSupported()).toBe(false);
    expect(await platformAuthenticatorAvailable()).toBe(false);
  });

  it('is present with PublicKeyCredential and navigator.credentials', async () => {
    stubWebAuthn({ platform: true });
    expect(passkeysSupported()).toBe(true);
    expect(await platformAuthenticatorAvailable()).toBe(true);
  });

  it('reports a missing platform authenticator, and a failing check as missing', async () => {
    const webauthn = stubWebAuthn({ platform: false });
    expect(await platformAuthenticatorAvailable()).toBe(false);
    webauthn.platform.mockRejectedValueOnce(new Error('not allowed in this frame'));
    expect(await platformAuthenticatorAvailable()).toBe(false);
  });
});

describe('error texts (spec 01 §8)', () => {
  it.each([
    ['NotAllowedError', 'Passkey registration was cancelled or not allowed'],
    ['InvalidStateError', 'A passkey already exists for this device'],
    ['NotSupportedError', 'Your device does not support passkeys'],
  ])('registration: %s', (name, text) => {
    expect(registrationErrorMessage(browserError(name))).toBe(text);
    // As @simplewebauthn/browser wraps it: an Error named after the browser's error.
    expect(registrationErrorMessage(Object.assign(new Error('wrapped'), { name }))).toBe(text);
  });

  it('registration: otherwise the message, or the fallback', () => {
    expect(registrationErrorMessage(new ApiError(500, 'internal', 'Passkey store unavailable'))).toBe('Passkey store unavailable');
    expect(registrationErrorMessage(new Error('WebAuthn is not supported in this browser'))).toBe('WebAuthn is not supported in this browser');
    expect(registrationErrorMessage(browserError('UnknownError', 'The authenticator failed'))).toBe('The authenticator failed');
    expect(registrationErrorMessage(new ApiError(500, 'unknown', ''))).toBe('Failed to create passkey. Please try again.');
    expect(registrationErrorMessage('boom')).toBe('Failed to create passkey. Please try again.');
  });

  it.each([
    ['NotAllowedError', 'Passkey authentication was cancelled or not allowed'],
    ['InvalidStateError', 'No passkeys found for this account'],
  ])('sign-in: %s', (name, text) => {
    expect(loginErrorMessage(browserError(name))).toBe(text);
    expect(loginErrorMessage(Object.assign(new Error('wrapped'), { name }))).toBe(text);
  });

  it('sign-in: a 401, otherwise the message, or the fallback', () => {
    expect(loginErrorMessage(new ApiError(401, 'unauthenticated', 'signature mismatch'))).toBe('Invalid passkey or authentication failed');
    expect(loginErrorMessage(new ApiError(429, 'too_many_requests', 'Slow down'))).toBe('Slow down');
    expect(loginErrorMessage(browserError('SecurityError', 'The RP ID is invalid'))).toBe('The RP ID is invalid');
    expect(loginErrorMessage(new ApiError(500, 'unknown', ''))).toBe('Failed to authenticate with passkey');
    expect(loginErrorMessage(undefined)).toBe('Failed to authenticate with passkey');
  });
});

describe('browser-stored passkey data (spec 01 §3)', () => {
  it('remembers users with a passkey under passkeyUsers and hasPasskey, without case', () => {
    expect(hasPasskeyHint('Admin')).toBe(false);
    rememberPasskey('Admin');
    rememberPasskey('merchant');
    rememberPasskey('admin'); // the same user again: one entry
    expect(passkeyUsers()).toEqual(['merchant', 'admin']);
    expect(JSON.parse(localStorage.getItem('passkeyUsers') ?? '')).toEqual(['merchant', 'admin']);
    expect(localStorage.getItem('hasPasskey')).toBe('true');
    expect(hasPasskeyHint(' ADMIN ')).toBe(true);
    expect(hasPasskeyHint('')).toBe(false);
    expect(hasPasskeyHint('support')).toBe(false);
  });

  it('forgets a user, and drops both keys with the last one', () => {
    rememberPasskey('admin');
    rememberPasskey('merchant');
    rememberPasskey('ADMIN', false);
    expect(passkeyUsers()).toEqual(['merchant']);
    rememberPasskey('merchant', false);
    expect(localStorage.getItem('passkeyUsers')).toBeNull();
    expect(localStorage.getItem('hasPasskey')).toBeNull();
  });

  it('ignores an unreadable passkeyUsers value', () => {
    localStorage.setItem('passkeyUsers', '{not json');
    expect(passkeyUsers()).toEqual([]);
    localStorage.setItem('passkeyUsers', '["admin", 7]');
    expect(passkeyUsers()).toEqual(['admin']);
  });

  it("'Not Now' stores skipPasskeySetup one day ahead and hides the prompt until then", () => {
    const now = Date.UTC(2026, 2, 10, 9, 30);
    expect(SKIP_PASSKEY_SETUP_MS).toBe(DAY);
    expect(passkeySetupSkipped(now)).toBe(false);
    skipPasskeySetup(now);
    expect(localStorage.getItem('skipPasskeySetup')).toBe(new Date(now + DAY).toISOString());
    expect(passkeySetupSkipped(now + 1)).toBe(true);
    expect(passkeySetupSkipped(now + DAY - 1)).toBe(true);
    expect(passkeySetupSkipped(now + DAY)).toBe(false);
  });

  it('takes an unreadable skipPasskeySetup date as not skipped', () => {
    localStorage.setItem('skipPasskeySetup', 'tomorrow');
    expect(passkeySetupSkipped()).toBe(false);
  });
});

describe('the password sign-in marker (in memory)', () => {
  it('is noted for one user, read any number of times and taken once', () => {
    expect(justSignedInWithPassword('admin')).toBe(false);
    notePasswordSignIn('admin');
    expect(justSignedInWithPassword('merchant')).toBe(false);
    expect(justSignedInWithPassword('admin')).toBe(true);
    expect(justSignedInWithPassword('admin')).toBe(true);
    expect(takePasswordSignIn('admin')).toBe(true);
    expect(takePasswordSignIn('admin')).toBe(false);
    expect(localStorage.length).toBe(0);
  });

  it('taken for another user, it is forgotten all the same', () => {
    notePasswordSignIn('admin');
    expect(takePasswordSignIn('merchant')).toBe(false);
    expect(justSignedInWithPassword('admin')).toBe(false);
  });
});

describe('signInWithPasskey', () => {
  let webauthn: FakeWebAuthn;
  const admin = { username: 'admin', roles: ['Admin' as const] };
  beforeEach(() => {
    webauthn = stubWebAuthn();
  });

  function answerOptions(seen: unknown[] = []) {
    server.use(
      http.post(`${AUTH}/api/v1/webauthn/authenticate/options`, async ({ request }) => {
        seen.push(await request.json());
        return HttpResponse.json(AUTHENTICATION_OPTIONS);
      }),
    );
    return seen;
  }

  it('asks for options, runs the ceremony, sends the assertion and stores the session', async () => {
    const pair = tokensFor(admin);
    const optionsBodies = answerOptions();
    const completed: unknown[] = [];
    server.use(
      http.post(`${AUTH}/api/v1/webauthn/authenticate/complete`, async ({ request }) => {
        completed.push(await request.json());
        return HttpResponse.json({ success: true, tokenResponse: { ...pair, expiresIn: 300, tokenType: 'Bearer' } });
      }),
    );
    webauthn.get.mockResolvedValueOnce(assertion('cred-1'));
    notePasswordSignIn('admin');

    const user = await signInWithPasskey(' admin ');

    expect(optionsBodies).toEqual([{ username: 'admin' }]);
    const request = webauthn.get.mock.calls[0]?.[0] as { publicKey: { challenge: ArrayBuffer; rpId: string } };
    expect(new TextDecoder().decode(request.publicKey.challenge)).toBe('sign-in-challenge');
    expect(request.publicKey.rpId).toBe('localhost');
    expect(completed).toEqual([
      expect.objectContaining({
        id: 'cred-1',
        rawId: 'Y3JlZC0x',
        type: 'public-key',
        response: expect.objectContaining({ signature: 'c2lnbmF0dXJl', userHandle: 'dXNlci03' }),
      }),
    ]);
    expect(user.username).toBe('admin');
    expect(session.getState().accessToken).toBe(pair.accessToken);
    expect(localStorage.getItem('refreshToken')).toBe(pair.refreshToken);
    expect(localStorage.getItem('lastUsername')).toBe('admin');
    expect(hasPasskeyHint('admin')).toBe(true);
    // A passkey sign-in is never followed by the setup prompt.
    expect(justSignedInWithPassword('admin')).toBe(false);
  });

  it('passes the browser refusal on, without completing', async () => {
    answerOptions();
    webauthn.get.mockRejectedValueOnce(browserError('NotAllowedError'));
    const err = await signInWithPasskey('admin').catch((e: unknown) => e);
    expect(loginErrorMessage(err)).toBe('Passkey authentication was cancelled or not allowed');
    expect(session.getState().accessToken).toBeNull();
  });

  it('rejects a bad passkey with the 401 text', async () => {
    answerOptions();
    server.use(
      http.post(`${AUTH}/api/v1/webauthn/authenticate/complete`, () =>
        HttpResponse.json({ code: 'unauthenticated', message: 'signature mismatch' }, { status: 401 }),
      ),
    );
    webauthn.get.mockResolvedValueOnce(assertion());
    const err = await signInWithPasskey('admin').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(loginErrorMessage(err)).toBe('Invalid passkey or authentication failed');
    expect(session.getState().user).toBeNull();
  });

  it.each([
    [{ success: false, errorMessage: 'Passkey is disabled' }, 'Passkey is disabled'],
    [{ errorMessage: '' }, 'Authentication failed'],
    [{ success: true, tokenResponse: {} }, 'Authentication failed'],
  ])('an unsuccessful answer %j reads %s', async (body, text) => {
    answerOptions();
    server.use(http.post(`${AUTH}/api/v1/webauthn/authenticate/complete`, () => HttpResponse.json(body)));
    webauthn.get.mockResolvedValueOnce(assertion());
    const err = await signInWithPasskey('admin').catch((e: unknown) => e);
    expect(loginErrorMessage(err)).toBe(text);
    expect(session.getState().accessToken).toBeNull();
  });

  it('an answer without options is an error, not a browser crash', async () => {
    server.use(http.post(`${AUTH}/api/v1/webauthn/authenticate/options`, () => HttpResponse.json({})));
    const err = await signInWithPasskey('admin').catch((e: unknown) => e);
    expect(loginErrorMessage(err)).toBe('The server answered without passkey options');
    expect(webauthn.get).not.toHaveBeenCalled();
  });

  it('an abort closes the open prompt and leaves the session alone', async () => {
    answerOptions();
    const controller = new AbortController();
    const attempt = signInWithPasskey('admin', controller.signal).catch((e: unknown) => e);
    await vi.waitFor(() => expect(webauthn.get).toHaveBeenCalled());
    const prompt = webauthn.get.mock.calls[0]?.[0];
    controller.abort();
    const err = (await attempt) as Error;
    expect(err.name).toBe('AbortError');
    expect(prompt?.signal?.aborted).toBe(true);
    expect(session.getState().accessToken).toBeNull();
  });

  it('an abort while the sign-in completes never replaces the current session', async () => {
    answerOptions();
    const controller = new AbortController();
    const password = tokensFor({ username: 'merchant', roles: ['Merchant'] });
    server.use(
      http.post(`${AUTH}/api/v1/webauthn/authenticate/complete`, () => {
        // Meanwhile the user signed in with a password.
        session.signIn(password);
        controller.abort();
        return HttpResponse.json({ success: true, tokenResponse: tokensFor(admin) });
      }),
    );
    webauthn.get.mockResolvedValueOnce(assertion());
    const err = (await signInWithPasskey('admin', controller.signal).catch((e: unknown) => e)) as Error;
    expect(err.name).toBe('AbortError');
    expect(session.getState().accessToken).toBe(password.accessToken);
    expect(session.getState().user?.username).toBe('merchant');
    expect(hasPasskeyHint('admin')).toBe(false);
  });

  it('does nothing once aborted before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    // No handler: a call would fail the test (onUnhandledRequest: 'error').
    const err = (await signInWithPasskey('admin', controller.signal).catch((e: unknown) => e)) as Error;
    expect(err.name).toBe('AbortError');
    expect(webauthn.get).not.toHaveBeenCalled();
  });
});

describe('registerPasskey', () => {
  let webauthn: FakeWebAuthn;
  beforeEach(() => {
    webauthn = stubWebAuthn();
    session.signIn(tokensFor({ username: 'admin', roles: ['Admin'] }));
  });

  function answerOptions(seen: unknown[] = []) {
    server.use(
      http.post(`${AUTH}/api/v1/webauthn/register/options`, async ({ request }) => {
        expect(request.headers.get('Authorization')).toBe(`Bearer ${session.getState().accessToken}`);
        seen.push(await request.json());
        return HttpResponse.json(REGISTRATION_OPTIONS);
      }),
    );
    return seen;
  }

  it('creates a passkey, sends the attestation and remembers the hint', async () => {
    const optionsBodies = answerOptions();
    const completed: unknown[] = [];
    const passkey = { id: '12', description: 'Passkey', createdAt: '2026-03-10T09:30:00Z' };
    server.use(
      http.post(`${AUTH}/api/v1/webauthn/register/complete`, async ({ request }) => {
        completed.push(await request.json());
        return HttpResponse.json({ success: true, passkey });
      }),
    );
    webauthn.create.mockResolvedValueOnce(attestation('cred-new'));

    expect(await registerPasskey('')).toEqual(passkey);

    expect(optionsBodies).toEqual([{ displayName: '' }]);
    const request = webauthn.create.mock.calls[0]?.[0] as { publicKey: { user: { id: ArrayBuffer; name: string } } };
    expect(new TextDecoder().decode(request.publicKey.user.id)).toBe('user-7');
    expect(completed).toEqual([
      expect.objectContaining({ id: 'cred-new', rawId: 'Y3JlZC1uZXc', response: expect.objectContaining({ transports: ['internal'] }) }),
    ]);
    expect(hasPasskeyHint('admin')).toBe(true);
  });

  it.each([
    [{ success: false, errorMessage: 'Passkey limit reached' }, 'Passkey limit reached'],
    // proto3 JSON leaves a false success out
    [{ errorMessage: 'Challenge expired' }, 'Challenge expired'],
    [{}, 'Registration failed'],
  ])('an unsuccessful answer %j reads %s and stores no hint', async (body, text) => {
    answerOptions();
    server.use(http.post(`${AUTH}/api/v1/webauthn/register/complete`, () => HttpResponse.json(body)));
    webauthn.create.mockResolvedValueOnce(attestation());
    const err = await registerPasskey('').catch((e: unknown) => e);
    expect(registrationErrorMessage(err)).toBe(text);
    expect(hasPasskeyHint('admin')).toBe(false);
  });

  it.each([
    ['NotAllowedError', 'Passkey registration was cancelled or not allowed'],
    ['InvalidStateError', 'A passkey already exists for this device'],
    ['NotSupportedError', 'Your device does not support passkeys'],
  ])('a browser %s reads as spec 01 §8 says', async (name, text) => {
    answerOptions();
    webauthn.create.mockRejectedValueOnce(browserError(name));
    const err = await registerPasskey('').catch((e: unknown) => e);
    expect(registrationErrorMessage(err)).toBe(text);
  });
});

describe('the passkey list', () => {
  it('lists and deletes the signed-in user’s passkeys', async () => {
    session.signIn(tokensFor({ username: 'admin', roles: ['Admin'] }));
    const passkeys = [{ id: '3', description: 'MacBook', createdAt: '2026-01-02T03:04:05Z', lastUsed: '2026-02-01T00:00:00Z' }];
    const deleted: string[] = [];
    server.use(
      http.get(`${AUTH}/api/v1/webauthn/credentials`, () => HttpResponse.json(passkeys)),
      http.delete(`${AUTH}/api/v1/webauthn/credentials/:id`, ({ params }) => {
        deleted.push(String(params.id));
        return new HttpResponse(null, { status: 204 });
      }),
    );
    expect(await listPasskeys()).toEqual(passkeys);
    await deletePasskey('3');
    expect(deleted).toEqual(['3']);
  });
});
