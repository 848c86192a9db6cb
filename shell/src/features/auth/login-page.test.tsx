import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { session } from '@paygate/sdk';
import { describe, expect, it } from 'vitest';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { renderApp } from '@paygate/devkit/testing';
import { tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';

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
});
