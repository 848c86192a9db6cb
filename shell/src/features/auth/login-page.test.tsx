import { act, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { rememberPasskey, session } from '@paygate/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { renderApp } from '@paygate/devkit/testing';
import { tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
import {
  assertion,
  AUTHENTICATION_OPTIONS,
  browserError,
  stubWebAuthn,
  unstubWebAuthn,
  type FakeWebAuthn,
} from '@paygate/devkit/testing/webauthn';

function answerLogin(user: TestUser) {
  const pair = tokensFor(user);
  server.use(
    http.post(`${AUTH}/api/v1/login`, () => HttpResponse.json({ ...pair, expiresIn: 300, tokenType: 'Bearer' })),
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])),
  );
}

async function signIn(user: ReturnType<typeof renderApp>['user'], username: string, password: string) {
  if (username) await user.type(screen.getByLabelText('Username'), username);
  if (password) await user.type(screen.getByLabelText('Password'), password);
  await user.click(screen.getByRole('button', { name: 'Login' }));
}

describe('Login page', () => {
  it('shows the username and password fields and the Login button, titled Paygate - Login', async () => {
    renderApp('/login');
    expect(screen.getByLabelText('Username')).toHaveAttribute('name', 'username');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Login' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /passkey/i })).not.toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Login'));
  });

  it.each([
    ['the username', '', 'secret'],
    ['the password', 'admin', ''],
    ['both fields', '', ''],
  ])("asks for both fields when %s is empty", async (_what, username, password) => {
    const { user } = renderApp('/login');
    await signIn(user, username, password);
    expect(await screen.findByText('Please enter username and password')).toBeInTheDocument();
  });

  it("says 'Invalid username or password' on a 401", async () => {
    server.use(
      http.post(`${AUTH}/api/v1/login`, () => HttpResponse.json({ code: 'unauthenticated', message: 'Something else' }, { status: 401 })),
    );
    const { user, router } = renderApp('/login');
    await signIn(user, 'admin', 'wrong');
    expect(await screen.findByText('Invalid username or password')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/login');
  });

  it("shows the server's message for other errors", async () => {
    server.use(
      http.post(`${AUTH}/api/v1/login`, () =>
        HttpResponse.json({ code: 'too_many_requests', message: 'Too many login attempts. Try again in 30 seconds.' }, { status: 429 }),
      ),
    );
    const { user } = renderApp('/login');
    await signIn(user, 'admin', 'x');
    expect(await screen.findByText('Too many login attempts. Try again in 30 seconds.')).toBeInTheDocument();
  });

  it("says 'Failed to login' when an error has no message", async () => {
    server.use(http.post(`${AUTH}/api/v1/login`, () => new HttpResponse('oops', { status: 500 })));
    const { user } = renderApp('/login');
    await signIn(user, 'admin', 'x');
    expect(await screen.findByText('Failed to login')).toBeInTheDocument();
  });

  it('prefills the last username', async () => {
    localStorage.setItem('lastUsername', 'merchant-admin');
    renderApp('/login');
    expect(screen.getByLabelText('Username')).toHaveValue('merchant-admin');
  });

  it('goes to /transactions after login', async () => {
    answerLogin({ username: 'merchant', roles: ['Merchant'] });
    const { user, router } = renderApp('/login');
    await signIn(user, 'merchant', 'paygate-demo');
    expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/transactions');
    expect(localStorage.getItem('lastUsername')).toBe('merchant');
  });

  it('goes to the saved redirect after login', async () => {
    answerLogin({ username: 'admin', roles: ['Admin'] });
    session.rememberRedirect('/balances?currency=PHP');
    const { user, router } = renderApp('/login');
    await signIn(user, 'admin', 'paygate-demo');
    expect(await screen.findByText('Screen /balances')).toBeInTheDocument();
    expect(router.state.location.search).toBe('?currency=PHP');
  });

  it('sends a user with a temporary password to /change-password', async () => {
    answerLogin({ username: 'newcomer', roles: ['Merchant Admin'], isTemporaryPassword: true });
    session.rememberRedirect('/files');
    const { user, router } = renderApp('/login');
    await signIn(user, 'newcomer', 'paygate-temp');
    expect(await screen.findByText('Screen /change-password')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/change-password');
  });

  it('sends a user with a temporary password whose role lacks Edit User to the same form at /temporary-password', async () => {
    answerLogin({ username: 'new-support', roles: ['Merchant Support'], merchantIds: [2], isTemporaryPassword: true });
    const { user, router } = renderApp('/login');
    await signIn(user, 'new-support', 'Tangerine-Orbit-42');
    expect(await screen.findByText('Screen /temporary-password')).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/temporary-password');
  });
});

/** answerLoginLater answers the password sign-in only once the test calls the returned release. */
function answerLoginLater(user: TestUser): () => void {
  const pair = tokensFor(user);
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  server.use(
    http.post(`${AUTH}/api/v1/login`, async () => {
      await released;
      return HttpResponse.json({ ...pair, expiresIn: 300, tokenType: 'Bearer' });
    }),
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])),
  );
  return () => release();
}

/** answerPasskey answers the passkey sign-in calls for user and records them. */
function answerPasskey(user: TestUser, complete?: () => Response) {
  const calls: string[] = [];
  const pair = tokensFor(user);
  server.use(
    http.post(`${AUTH}/api/v1/webauthn/authenticate/options`, async ({ request }) => {
      calls.push(`options ${JSON.stringify(await request.json())}`);
      return HttpResponse.json(AUTHENTICATION_OPTIONS);
    }),
    http.post(`${AUTH}/api/v1/webauthn/authenticate/complete`, () => {
      calls.push('complete');
      return complete ? complete() : HttpResponse.json({ success: true, tokenResponse: { ...pair, expiresIn: 300, tokenType: 'Bearer' } });
    }),
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])),
  );
  return { calls, pair };
}

const passkeyButton = () => screen.queryByRole('button', { name: 'Sign in with Passkey' });

describe('Login page: passkeys', () => {
  let webauthn: FakeWebAuthn;
  beforeEach(() => {
    webauthn = stubWebAuthn();
  });
  afterEach(() => unstubWebAuthn());

  describe("the 'Sign in with Passkey' button", () => {
    it('shows while the entered username is known to have a passkey', async () => {
      rememberPasskey('merchant');
      const { user } = renderApp('/login');
      expect(passkeyButton()).not.toBeInTheDocument();
      await user.type(screen.getByLabelText('Username'), 'merch');
      expect(passkeyButton()).not.toBeInTheDocument();
      await user.type(screen.getByLabelText('Username'), 'ant');
      expect(passkeyButton()).toBeInTheDocument();
      await user.type(screen.getByLabelText('Username'), '2');
      expect(passkeyButton()).not.toBeInTheDocument();
      await user.type(screen.getByLabelText('Username'), '{Backspace}');
      expect(passkeyButton()).toBeInTheDocument();
      await user.clear(screen.getByLabelText('Username'));
      await user.type(screen.getByLabelText('Username'), 'MERCHANT');
      expect(passkeyButton()).toBeInTheDocument();
    });

    it('never shows on a device without passkey support', async () => {
      unstubWebAuthn();
      rememberPasskey('merchant');
      const { user } = renderApp('/login');
      await user.type(screen.getByLabelText('Username'), 'merchant');
      expect(screen.getByLabelText('Username')).toHaveValue('merchant');
      expect(passkeyButton()).not.toBeInTheDocument();
    });

    it('signs in with the passkey and goes to the saved redirect', async () => {
      rememberPasskey('admin');
      const { calls, pair } = answerPasskey({ username: 'admin', roles: ['Admin'] });
      webauthn.get.mockResolvedValueOnce(assertion());
      session.rememberRedirect('/balances?currency=PHP');
      const { user, router } = renderApp('/login');
      await user.type(screen.getByLabelText('Username'), 'admin');
      await user.click(screen.getByRole('button', { name: 'Sign in with Passkey' }));
      expect(await screen.findByText('Screen /balances')).toBeInTheDocument();
      expect(router.state.location.search).toBe('?currency=PHP');
      expect(calls).toEqual(['options {"username":"admin"}', 'complete']);
      expect(session.getState().accessToken).toBe(pair.accessToken);
      expect(localStorage.getItem('lastUsername')).toBe('admin');
    });

    it('sends a user with a temporary password to /change-password', async () => {
      rememberPasskey('newcomer');
      answerPasskey({ username: 'newcomer', roles: ['Merchant Admin'], isTemporaryPassword: true });
      webauthn.get.mockResolvedValueOnce(assertion());
      const { user, router } = renderApp('/login');
      await user.type(screen.getByLabelText('Username'), 'newcomer');
      await user.click(screen.getByRole('button', { name: 'Sign in with Passkey' }));
      expect(await screen.findByText('Screen /change-password')).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/change-password');
    });

    it.each([
      ['the browser says NotAllowedError', () => webauthn.get.mockRejectedValueOnce(browserError('NotAllowedError')), undefined, 'Passkey authentication was cancelled or not allowed'],
      ['the browser says InvalidStateError', () => webauthn.get.mockRejectedValueOnce(browserError('InvalidStateError')), undefined, 'No passkeys found for this account'],
      [
        'the server answers 401',
        () => webauthn.get.mockResolvedValueOnce(assertion()),
        () => HttpResponse.json({ code: 'unauthenticated', message: 'bad signature' }, { status: 401 }),
        'Invalid passkey or authentication failed',
      ],
      [
        'the server answers with a message',
        () => webauthn.get.mockResolvedValueOnce(assertion()),
        () => HttpResponse.json({ success: false, errorMessage: 'This passkey was revoked' }),
        'This passkey was revoked',
      ],
      [
        'the error has no message',
        () => webauthn.get.mockResolvedValueOnce(assertion()),
        () => new HttpResponse('oops', { status: 500 }),
        'Failed to authenticate with passkey',
      ],
    ])('when %s, says so in a toast and stays on /login', async (_when, browser, complete, text) => {
      rememberPasskey('admin');
      answerPasskey({ username: 'admin', roles: ['Admin'] }, complete);
      browser();
      const { user, router } = renderApp('/login');
      await user.type(screen.getByLabelText('Username'), 'admin');
      await user.click(screen.getByRole('button', { name: 'Sign in with Passkey' }));
      expect(await screen.findByText(text)).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/login');
      expect(session.getState().accessToken).toBeNull();
      // The button is ready for another try.
      await waitFor(() => expect(passkeyButton()).toBeEnabled());
    });
  });

  describe('the automatic attempt on arrival', () => {
    it('runs once for the prefilled username with a passkey and goes on after success', async () => {
      localStorage.setItem('lastUsername', 'merchant');
      rememberPasskey('merchant');
      const { calls } = answerPasskey({ username: 'merchant', roles: ['Merchant'] });
      webauthn.get.mockResolvedValueOnce(assertion());
      const { router } = renderApp('/login');
      expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/transactions');
      expect(calls).toEqual(['options {"username":"merchant"}', 'complete']);
      expect(webauthn.get).toHaveBeenCalledTimes(1);
      expect(session.getState().user?.username).toBe('merchant');
    });

    it.each([
      ['the browser refuses', () => webauthn.get.mockRejectedValueOnce(browserError('NotAllowedError')), undefined],
      [
        'the server rejects the passkey',
        () => webauthn.get.mockResolvedValueOnce(assertion()),
        () => HttpResponse.json({ code: 'unauthenticated', message: 'bad signature' }, { status: 401 }),
      ],
    ])('fails silently when %s, and the password still works', async (_when, browser, complete) => {
      localStorage.setItem('lastUsername', 'merchant');
      rememberPasskey('merchant');
      answerPasskey({ username: 'merchant', roles: ['Merchant'] }, complete);
      answerLogin({ username: 'merchant', roles: ['Merchant'] });
      browser();
      const { user, router } = renderApp('/login');
      await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(1));
      // The attempt is over when the button is no longer busy.
      await waitFor(() => expect(passkeyButton()).toBeEnabled());
      expect(screen.queryByRole('status')).not.toBeInTheDocument();
      expect(screen.queryByText(/passkey/i, { selector: ':not(button)' })).not.toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/login');

      await user.type(screen.getByLabelText('Password'), 'paygate-demo');
      await user.click(screen.getByRole('button', { name: 'Login' }));
      expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
    });

    it('is cancelled, prompt and calls, when the user signs in with the password', async () => {
      localStorage.setItem('lastUsername', 'admin');
      rememberPasskey('admin');
      const { calls } = answerPasskey({ username: 'admin', roles: ['Admin'] });
      const release = answerLoginLater({ username: 'admin', roles: ['Admin'] });
      // The browser's prompt stays open (the fake answers only an abort).
      const { user, router } = renderApp('/login');
      await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(1));
      const prompt = webauthn.get.mock.calls[0]?.[0];
      expect(prompt?.signal?.aborted).toBe(false);
      await user.type(screen.getByLabelText('Password'), 'paygate-demo');
      await user.click(screen.getByRole('button', { name: 'Login' }));
      // Cancelled as the password sign-in starts, not when the page goes.
      await waitFor(() => expect(prompt?.signal?.aborted).toBe(true));
      expect(router.state.location.pathname).toBe('/login');
      release();
      expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/transactions');
      expect(calls).toEqual(['options {"username":"admin"}']);
      expect(session.getState().refreshToken).toBe('refresh-admin');
      expect(screen.queryByText(/passkey/i)).not.toBeInTheDocument();
    });

    it('cancels its pending call when the user signs in with the password', async () => {
      localStorage.setItem('lastUsername', 'admin');
      rememberPasskey('admin');
      let optionsCall: Request | undefined;
      server.use(
        http.post(`${AUTH}/api/v1/webauthn/authenticate/options`, ({ request }) => {
          optionsCall = request;
          // The server takes its time.
          return new Promise<Response>(() => {});
        }),
      );
      const release = answerLoginLater({ username: 'admin', roles: ['Admin'] });
      const { user } = renderApp('/login');
      await waitFor(() => expect(optionsCall).toBeDefined());
      expect(optionsCall?.signal.aborted).toBe(false);
      await user.type(screen.getByLabelText('Password'), 'paygate-demo');
      await user.click(screen.getByRole('button', { name: 'Login' }));
      await waitFor(() => expect(optionsCall?.signal.aborted).toBe(true));
      release();
      expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
      expect(webauthn.get).not.toHaveBeenCalled();
    });

    it.each([
      ['the prefilled username has no passkey hint', () => rememberPasskey('someone-else')],
      ['the device does not support passkeys', () => (unstubWebAuthn(), rememberPasskey('admin'))],
    ])('does not run when %s', async (_when, arrange) => {
      localStorage.setItem('lastUsername', 'admin');
      arrange();
      // No passkey handlers: a call would fail the test.
      renderApp('/login');
      expect(screen.getByLabelText('Username')).toHaveValue('admin');
      await act(() => new Promise((r) => setTimeout(r, 50)));
      expect(webauthn.get).not.toHaveBeenCalled();
    });

    it("does not run right after Logout; 'Sign in with Passkey' still works, and the next arrival tries again", async () => {
      sessionStorage.clear();
      const merchant: TestUser = { username: 'merchant', roles: ['Merchant'] };
      localStorage.setItem('lastUsername', 'merchant');
      rememberPasskey('merchant');
      const { calls } = answerPasskey(merchant);
      server.use(http.post(`${AUTH}/api/v1/logout`, () => HttpResponse.json({})));
      const first = renderApp('/transactions', { user: merchant });
      await first.user.click(await screen.findByRole('button', { name: 'Logout' }));
      await waitFor(() => expect(first.router.state.location.pathname).toBe('/login'));
      expect(await screen.findByLabelText('Username')).toHaveValue('merchant');
      await act(() => new Promise((r) => setTimeout(r, 100)));
      expect(webauthn.get).not.toHaveBeenCalled();
      expect(calls).toEqual([]);
      expect(first.router.state.location.pathname).toBe('/login');

      // A click is the user's own choice: it signs in.
      webauthn.get.mockResolvedValueOnce(assertion());
      await first.user.click(await screen.findByRole('button', { name: 'Sign in with Passkey' }));
      expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
      expect(calls).toEqual(['options {"username":"merchant"}', 'complete']);
      first.unmount();

      // That sign-in ended the logout's effect: a later arrival (a reload after the session expired) tries by itself.
      session.clear();
      webauthn.get.mockResolvedValueOnce(assertion());
      renderApp('/login');
      await waitFor(() => expect(webauthn.get).toHaveBeenCalledTimes(2));
      expect(await screen.findByText('Screen /transactions/:id?')).toBeInTheDocument();
    });

    it('does not run after a reload of the login page that Logout opened (the mark outlives the page, in this tab)', async () => {
      sessionStorage.clear();
      const merchant: TestUser = { username: 'merchant', roles: ['Merchant'] };
      localStorage.setItem('lastUsername', 'merchant');
      rememberPasskey('merchant');
      server.use(http.post(`${AUTH}/api/v1/logout`, () => HttpResponse.json({})));
      const first = renderApp('/transactions', { user: merchant });
      await first.user.click(await screen.findByRole('button', { name: 'Logout' }));
      await waitFor(() => expect(first.router.state.location.pathname).toBe('/login'));
      first.unmount();
      const { calls } = answerPasskey(merchant);
      webauthn.get.mockResolvedValue(assertion());
      const reloaded = renderApp('/login');
      await act(() => new Promise((r) => setTimeout(r, 100)));
      expect(calls).toEqual([]);
      expect(webauthn.get).not.toHaveBeenCalled();
      expect(reloaded.router.state.location.pathname).toBe('/login');
      sessionStorage.clear();
    });
  });
});
