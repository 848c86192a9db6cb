import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { rememberPasskey, session } from '@paygate/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { renderApp } from '@paygate/devkit/testing';
import '@paygate/devkit/testing/pointer-event';
import { tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
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

const DAY = 24 * 60 * 60 * 1000;
const ADMIN: TestUser = { username: 'admin', roles: ['Admin'] };
const START = new Date('2026-03-10T09:30:00Z');
/**
 * The API client took the real Date.now before the clock was faked, so a
 * token must outlive the real date too, or the calls of a signed-in page
 * (the sidebar's count of pending approvals) refresh it first.
 */
const LONG_TTL = 3 * 365 * 24 * 60 * 60;

let webauthn: FakeWebAuthn;
beforeEach(() => {
  webauthn = stubWebAuthn({ platform: true });
  // Only the clock and timeouts are fake: the prompt's 2 seconds pass when a
  // test says so (elapse), never while the test waits for the page (until).
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  vi.setSystemTime(START);
  // Testing Library settles each user-event action with a zero timeout; it
  // runs that one through the global `jest` when timers are fake.
  vi.stubGlobal('jest', { advanceTimersByTime: (ms: number) => vi.advanceTimersByTime(ms) });
  server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])));
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
  unstubWebAuthn();
});

/** elapse moves the fake clock on by ms and lets what it fires settle. */
async function elapse(ms: number) {
  await act(() => vi.advanceTimersByTimeAsync(ms));
}

/**
 * until retries check until it passes, letting the page work in between
 * without moving the fake clock (Testing Library's waitFor would move it).
 */
async function until(check: () => void, tries = 500): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      check();
      return;
    } catch (err) {
      if (i >= tries) throw err;
    }
    await act(() => new Promise<void>((resolve) => setImmediate(resolve)));
  }
}

/** shown waits for the open setup dialog. */
async function shown(): Promise<HTMLElement> {
  await until(() => expect(dialog()).toBeInTheDocument());
  return dialog() as HTMLElement;
}

/** text waits for a text on the page. */
async function text(t: string): Promise<void> {
  await until(() => expect(screen.getByText(t)).toBeInTheDocument());
}

const dialog = () => screen.queryByRole('dialog', { name: 'Set Up Passkey' });

/** signInWithPassword renders /login and signs in as u with a password, ending on /transactions. */
async function signInWithPassword(u: TestUser = ADMIN) {
  // The token must outlive the real date too (LONG_TTL), or the registration calls refresh.
  const pair = tokensFor(u, LONG_TTL);
  server.use(http.post(`${AUTH}/api/v1/login`, () => HttpResponse.json({ ...pair, expiresIn: 300, tokenType: 'Bearer' })));
  const view = renderApp('/login');
  const user = userEvent.setup({ delay: null });
  await user.type(screen.getByLabelText('Username'), u.username ?? '');
  await user.type(screen.getByLabelText('Password'), 'paygate-demo');
  await user.click(screen.getByRole('button', { name: 'Login' }));
  await text(u.isTemporaryPassword ? 'Screen /change-password' : 'Screen /transactions/:id?');
  return { ...view, user };
}

describe('Passkey setup dialog', () => {
  it('appears 2 seconds after a password sign-in, not before', async () => {
    await signInWithPassword();
    await elapse(1_999);
    expect(dialog()).not.toBeInTheDocument();
    await elapse(1);
    const open = await shown();
    expect(within(open).getByText(/fingerprint, face or device PIN/)).toBeInTheDocument();
    expect(within(open).getByRole('button', { name: 'Set Up Passkey' })).toBeEnabled();
    expect(within(open).getByRole('button', { name: 'Not Now' })).toBeEnabled();
  });

  it("'Not Now' hides it for one day: not back within the day, back after it", async () => {
    const first = await signInWithPassword();
    await elapse(2_000);
    const open = await shown();
    const clickedAt = Date.now();
    expect(clickedAt).toBe(START.getTime() + 2_000);
    await first.user.click(within(open).getByRole('button', { name: 'Not Now' }));
    await until(() => expect(dialog()).not.toBeInTheDocument());
    expect(localStorage.getItem('skipPasskeySetup')).toBe(new Date(clickedAt + DAY).toISOString());

    // Signed out and in again 23 hours later: nothing.
    first.unmount();
    session.clear();
    vi.setSystemTime(START.getTime() + 23 * 60 * 60 * 1000);
    const second = await signInWithPassword();
    await elapse(5_000);
    expect(dialog()).not.toBeInTheDocument();

    // A day and a minute after 'Not Now': it comes back.
    second.unmount();
    session.clear();
    vi.setSystemTime(START.getTime() + DAY + 60_000);
    await signInWithPassword();
    await elapse(2_000);
    await shown();
  });

  it("'Set Up Passkey' registers a passkey named after the browser, busy meanwhile, then says 'Passkey Created'", async () => {
    const bodies: unknown[] = [];
    server.use(
      http.post(`${AUTH}/api/v1/webauthn/register/options`, async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json(REGISTRATION_OPTIONS);
      }),
      http.post(`${AUTH}/api/v1/webauthn/register/complete`, () =>
        HttpResponse.json({ success: true, passkey: { id: '9', description: 'Passkey', createdAt: START.toISOString() } }),
      ),
    );
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    );
    let answer: (credential: unknown) => void = () => {};
    webauthn.create.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    const { user } = await signInWithPassword();
    await elapse(2_000);
    const open = await shown();

    const setUp = within(open).getByRole('button', { name: 'Set Up Passkey' });
    await user.click(setUp);
    await until(() => expect(webauthn.create).toHaveBeenCalled());
    expect(setUp).toBeDisabled();
    expect(setUp).toHaveAttribute('data-loading');
    expect(within(open).getByRole('button', { name: 'Not Now' })).toBeDisabled();
    // Named after the browser, its system and the day, not the server's bare "Passkey".
    expect(bodies).toEqual([{ displayName: 'Chrome on Linux · 10 Mar 2026' }]);

    answer(attestation());
    await text('Passkey Created');
    expect(screen.getByText('Your passkey has been set up successfully!')).toBeInTheDocument();
    await until(() => expect(dialog()).not.toBeInTheDocument());
    expect(localStorage.getItem('skipPasskeySetup')).toBeNull();
    expect(JSON.parse(localStorage.getItem('passkeyUsers') ?? '[]')).toEqual(['admin']);
  });

  it.each([
    ['NotAllowedError', 'Passkey registration was cancelled or not allowed'],
    ['InvalidStateError', 'A passkey already exists for this device'],
    ['NotSupportedError', 'Your device does not support passkeys'],
  ])('a browser %s is a toast, and the dialog stays for another choice', async (name, message) => {
    server.use(http.post(`${AUTH}/api/v1/webauthn/register/options`, () => HttpResponse.json(REGISTRATION_OPTIONS)));
    webauthn.create.mockRejectedValueOnce(browserError(name));
    const { user } = await signInWithPassword();
    await elapse(2_000);
    const open = await shown();
    await user.click(within(open).getByRole('button', { name: 'Set Up Passkey' }));
    await text(message);
    await until(() => expect(within(open).getByRole('button', { name: 'Set Up Passkey' })).toBeEnabled());
    expect(dialog()).toBeInTheDocument();
  });

  it("the server's refusal is a toast with its message, or the fallback", async () => {
    server.use(
      http.post(`${AUTH}/api/v1/webauthn/register/options`, () => HttpResponse.json(REGISTRATION_OPTIONS)),
      http.post(`${AUTH}/api/v1/webauthn/register/complete`, () => HttpResponse.json({ success: false, errorMessage: 'Passkey limit reached' })),
    );
    webauthn.create.mockResolvedValue(attestation());
    const { user } = await signInWithPassword();
    await elapse(2_000);
    const open = await shown();
    const setUp = within(open).getByRole('button', { name: 'Set Up Passkey' });
    await user.click(setUp);
    await text('Passkey limit reached');

    server.use(http.post(`${AUTH}/api/v1/webauthn/register/complete`, () => new HttpResponse(null, { status: 500 })));
    await until(() => expect(setUp).toBeEnabled());
    await user.click(setUp);
    await text('Failed to create passkey. Please try again.');
  });

  describe('does not appear', () => {
    it('when the user already has a passkey hint', async () => {
      rememberPasskey('admin');
      await signInWithPassword();
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
    });

    it('without a platform authenticator', async () => {
      webauthn.platform.mockResolvedValue(false);
      await signInWithPassword();
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
      expect(webauthn.platform).toHaveBeenCalled();
    });

    it('on a device without passkey support', async () => {
      unstubWebAuthn();
      await signInWithPassword();
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
    });

    it("within a day of 'Not Now'", async () => {
      localStorage.setItem('skipPasskeySetup', new Date(START.getTime() + 60_000).toISOString());
      await signInWithPassword();
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
    });

    it('for a user with a temporary password', async () => {
      await signInWithPassword({ username: 'newcomer', roles: ['Merchant Admin'], isTemporaryPassword: true });
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
    });

    it('after a passkey sign-in', async () => {
      server.use(
        http.post(`${AUTH}/api/v1/webauthn/authenticate/options`, () => HttpResponse.json(AUTHENTICATION_OPTIONS)),
        http.post(`${AUTH}/api/v1/webauthn/authenticate/complete`, () => HttpResponse.json({ success: true, tokenResponse: tokensFor(ADMIN, LONG_TTL) })),
      );
      webauthn.get.mockResolvedValueOnce(assertion());
      // A password sign-in earlier in this tab, signed out within the 2 seconds.
      const first = await signInWithPassword();
      first.unmount();
      session.clear();

      // Back on /login, the automatic passkey attempt signs admin in.
      localStorage.setItem('lastUsername', 'admin');
      rememberPasskey('admin');
      renderApp('/login');
      await text('Screen /transactions/:id?');
      expect(webauthn.get).toHaveBeenCalledTimes(1);
      // Without the hint, only the kind of sign-in keeps the prompt away.
      rememberPasskey('admin', false);
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
    });

    it('on a page load of a signed-in session (no sign-in just happened)', async () => {
      session.signIn(tokensFor(ADMIN, LONG_TTL));
      renderApp('/transactions');
      await text('Screen /transactions/:id?');
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
    });

    it('once dismissed, for the rest of that session', async () => {
      const { user } = await signInWithPassword();
      await elapse(2_000);
      await user.click(within(await shown()).getByRole('button', { name: 'Close' }));
      await until(() => expect(dialog()).not.toBeInTheDocument());
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
    });

    it('on the login page, when the user signs out within the 2 seconds', async () => {
      const { router } = await signInWithPassword();
      await elapse(1_000);
      act(() => session.clear());
      await until(() => expect(router.state.location.pathname).toBe('/login'));
      await elapse(5_000);
      expect(dialog()).not.toBeInTheDocument();
    });
  });
});
