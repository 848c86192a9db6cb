import { screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { session } from '@paygate/sdk';
import { describe, expect, it, vi } from 'vitest';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { renderApp } from '@paygate/devkit/testing';
import { tokensFor } from '@paygate/devkit/testing/tokens';

const ADMIN = { username: 'admin', roles: ['Admin' as const] };

function answerPassword(step: 'SIGN_IN_STEP_CODE' | 'SIGN_IN_STEP_ENROL') {
  server.use(
    http.post(`${AUTH}/api/v1/login`, () =>
      HttpResponse.json({ accessToken: '', refreshToken: '', secondFactor: { challenge: 'ch-1', step, expiresIn: 300 } }),
    ),
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])),
  );
}

async function password(user: ReturnType<typeof renderApp>['user']) {
  await user.type(screen.getByLabelText('Username'), 'admin');
  await user.type(screen.getByLabelText('Password'), 'paygate-demo');
  await user.click(screen.getByRole('button', { name: 'Login' }));
}

describe('Sign-in with a second factor (issue 27)', () => {
  it('asks for the code after the password, then signs in', async () => {
    answerPassword('SIGN_IN_STEP_CODE');
    let sent: unknown;
    server.use(
      http.post(`${AUTH}/api/v1/login/second-factor`, async ({ request }) => {
        sent = await request.json();
        return HttpResponse.json({ ...tokensFor(ADMIN), expiresIn: 300, tokenType: 'Bearer', recoveryCodesLeft: 10 });
      }),
    );
    const { user, router } = renderApp('/login');
    await password(user);
    expect(await screen.findByRole('heading', { name: 'Two-factor authentication' })).toBeInTheDocument();
    expect(session.getState().accessToken).toBeFalsy();
    const code = screen.getByLabelText('Authentication code');
    expect(code).toHaveAttribute('autocomplete', 'one-time-code');
    expect(code).toHaveAttribute('inputmode', 'numeric');
    await user.type(code, '123 456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/transactions'));
    expect(sent).toEqual({ challenge: 'ch-1', code: '123456' });
    expect(session.getState().user?.username).toBe('admin');
  });

  it('takes a recovery code instead, and shows a refusal without leaving the step', async () => {
    answerPassword('SIGN_IN_STEP_CODE');
    const sent: unknown[] = [];
    server.use(
      http.post(`${AUTH}/api/v1/login/second-factor`, async ({ request }) => {
        sent.push(await request.json());
        if (sent.length === 1) {
          return HttpResponse.json({ code: 'unauthenticated', message: 'The recovery code is not valid or was already used.' }, { status: 401 });
        }
        return HttpResponse.json({ ...tokensFor(ADMIN), expiresIn: 300, tokenType: 'Bearer', recoveryCodesLeft: 9 });
      }),
    );
    const { user, router } = renderApp('/login');
    await password(user);
    await user.click(await screen.findByRole('button', { name: 'Use a recovery code instead' }));
    await user.type(screen.getByLabelText('Recovery code'), 'aaaa-bbbb-cccc-dddd');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The recovery code is not valid or was already used.');
    await user.type(screen.getByLabelText('Recovery code'), 'eeee-ffff-gggg-hhhh');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/transactions'));
    expect(sent).toEqual([
      { challenge: 'ch-1', recoveryCode: 'aaaa-bbbb-cccc-dddd' },
      { challenge: 'ch-1', recoveryCode: 'eeee-ffff-gggg-hhhh' },
    ]);
  });

  it('starts over when the challenge has expired', async () => {
    answerPassword('SIGN_IN_STEP_CODE');
    server.use(
      http.post(`${AUTH}/api/v1/login/second-factor`, () =>
        HttpResponse.json(
          { code: 'unauthenticated', message: 'The sign-in has expired or was already completed. Please sign in again.' },
          { status: 401 },
        ),
      ),
    );
    const { user } = renderApp('/login');
    await password(user);
    await user.type(await screen.findByLabelText('Authentication code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('button', { name: 'Login' })).toBeInTheDocument();
    expect(screen.getByLabelText('Password')).toHaveValue('');
  });

  it('enrols when the policy requires it: QR code, key, first code, then the recovery codes once', async () => {
    answerPassword('SIGN_IN_STEP_ENROL');
    const codes = Array.from({ length: 10 }, (_, i) => `abcd-efgh-jkmn-pq${i}${i}`);
    server.use(
      http.post(`${AUTH}/api/v1/login/second-factor/enrol/begin`, () =>
        HttpResponse.json({ enrolment: { secret: 'JBSWY3DPEHPK3PXP', otpauthUrl: 'otpauth://totp/Paygate:admin?secret=JBSWY3DPEHPK3PXP&issuer=Paygate' } }),
      ),
      http.post(`${AUTH}/api/v1/login/second-factor/enrol/complete`, () =>
        HttpResponse.json({ ...tokensFor(ADMIN), expiresIn: 300, tokenType: 'Bearer', recoveryCodes: codes }),
      ),
    );
    const { user, router } = renderApp('/login');
    await password(user);
    expect(await screen.findByRole('heading', { name: 'Set up two-factor authentication' })).toBeInTheDocument();
    expect(await screen.findByRole('img', { name: /QR code/ })).toBeInTheDocument();
    expect(screen.getByLabelText('Key to enter by hand')).toHaveTextContent('JBSW Y3DP EHPK 3PXP');
    await user.type(screen.getByLabelText('Authentication code'), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify and continue' }));
    const list = await screen.findByRole('list', { name: 'Recovery codes' });
    expect(within(list).getAllByRole('listitem')).toHaveLength(10);
    expect(router.state.location.pathname).toBe('/login');
    await user.click(screen.getByRole('button', { name: 'I have saved them — continue' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/transactions'));
  });
});
