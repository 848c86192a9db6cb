import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { api, ApiError, CONFIRMATION_HEADER, session } from '@paygate/sdk';
import { describe, expect, it, vi } from 'vitest';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { tokensFor } from '@paygate/devkit/testing/tokens';
import { ConfirmationHost } from './confirmation-host';

// The browser library is mocked at its module boundary: it is not our service.
const startAuthentication = vi.fn();
vi.mock('@simplewebauthn/browser', () => ({ startAuthentication: (...args: unknown[]) => startAuthentication(...args) }));

const CHALLENGE = { action: '{"action":"transaction.set_status"}', request: 'CgEx' };

/** A status override that answers 428 until it carries the token tok-1. */
function overrideHandler(seen: (string | null)[]) {
  return http.post(`${GATEWAY}/api/v1/transactions/5/status`, ({ request }) => {
    const header = request.headers.get(CONFIRMATION_HEADER);
    seen.push(header);
    if (header === 'tok-1') return HttpResponse.json({ id: 5, status: 'success' });
    return HttpResponse.json({ code: 'confirmation_required', message: 'This change needs your confirmation.', confirmation: CHALLENGE }, { status: 428 });
  });
}

function setup(begin: Record<string, unknown>) {
  session.signIn(tokensFor({ username: 'admin', roles: ['Admin'] }));
  const begins: Record<string, unknown>[] = [];
  const finishes: Record<string, unknown>[] = [];
  const seen: (string | null)[] = [];
  server.use(
    overrideHandler(seen),
    http.post(`${AUTH}/api/v1/confirmations`, async ({ request }) => {
      begins.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json({ confirmationId: 'c-1', title: 'Override a transaction status', summary: ['Transaction 5', 'New status: success'], ...begin });
    }),
    http.post(`${AUTH}/api/v1/confirmations/c-1/finish`, async ({ request }) => {
      finishes.push((await request.json()) as Record<string, unknown>);
      return HttpResponse.json({ token: 'tok-1' });
    }),
  );
  render(
    <ChakraProvider value={defaultSystem}>
      <ConfirmationHost />
    </ChakraProvider>,
  );
  const call = api.post('gateway', '/api/v1/transactions/5/status', { status: 'success' });
  return { begins, finishes, seen, call };
}

describe('ConfirmationHost (issue 28)', () => {
  it('webauthn: shows the summary, signs with the passkey and the call is repeated with the token', async () => {
    startAuthentication.mockResolvedValue({ id: 'cred-1', response: { signature: 'sig' } });
    const { begins, finishes, seen, call } = setup({ method: 'webauthn', publicKeyOptions: JSON.stringify({ publicKey: { challenge: 'abc', rpId: 'localhost' } }) });
    expect(await screen.findByText('New status: success')).toBeVisible();
    expect(screen.getByRole('dialog', { name: 'Override a transaction status' })).toBeVisible();
    await userEvent.type(screen.getByLabelText(/Reason/), 'customer paid twice');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm with passkey' }));
    await expect(call).resolves.toEqual({ id: 5, status: 'success' });
    expect(startAuthentication).toHaveBeenCalledWith({ optionsJSON: { challenge: 'abc', rpId: 'localhost' } });
    expect(begins.at(-1)).toEqual({ ...CHALLENGE, reason: 'customer paid twice' });
    expect(finishes).toEqual([{ confirmationId: 'c-1', assertion: JSON.stringify({ id: 'cred-1', response: { signature: 'sig' } }) }]);
    expect(seen).toEqual([null, 'tok-1']);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('totp: takes a 6-digit code', async () => {
    const { finishes, call } = setup({ method: 'totp' });
    await userEvent.type(await screen.findByLabelText('Authentication code'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Confirm' }));
    await expect(call).resolves.toEqual({ id: 5, status: 'success' });
    expect(finishes).toEqual([{ confirmationId: 'c-1', totpCode: '123456' }]);
  });

  it('a required reason must be typed before signing; Cancel rejects the call as cancelled', async () => {
    const { finishes, call } = setup({ method: 'none', reasonRequired: true });
    const settled = call.catch((e: unknown) => e);
    await userEvent.click(await screen.findByRole('button', { name: 'Confirm' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Enter a reason for this change.');
    expect(finishes).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    const err = await settled;
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).cancelled).toBe(true);
  });

  it('a change auth describes only with its reason: the reason first, then the summary, then the passkey', async () => {
    startAuthentication.mockResolvedValue({ id: 'cred-1', response: { signature: 'sig' } });
    const { begins, finishes, call } = setup({ method: 'webauthn', reasonRequired: true, publicKeyOptions: JSON.stringify({ publicKey: { challenge: 'abc' } }) });
    server.use(
      http.post(`${AUTH}/api/v1/confirmations`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        begins.push(body);
        if (!body.reason) return HttpResponse.json({ code: 'invalid_argument', message: 'reason is required for this change.' }, { status: 400 });
        return HttpResponse.json({ confirmationId: 'c-1', title: 'Override a transaction status', summary: ['Transaction 5'], method: 'webauthn', reasonRequired: true, publicKeyOptions: JSON.stringify({ publicKey: { challenge: 'abc' } }) });
      }),
    );
    expect(await screen.findByText(/This change needs a reason/)).toBeVisible();
    expect(screen.queryByRole('alert')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Review the change' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Enter a reason for this change.');
    await userEvent.type(screen.getByLabelText(/Reason/), 'chargeback');
    await userEvent.click(screen.getByRole('button', { name: 'Review the change' }));
    expect(await screen.findByText('Transaction 5')).toBeVisible();
    expect(finishes).toEqual([]);
    expect(startAuthentication).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: 'Confirm with passkey' }));
    await expect(call).resolves.toEqual({ id: 5, status: 'success' });
    expect(begins.map((b) => b.reason)).toEqual([undefined, 'chargeback']);
    expect(finishes).toHaveLength(1);
  });

  it('says when the change needs approval before signing', async () => {
    const { call } = setup({ method: 'none', approval: { required: true, approverPermission: 'Edit Fees' } });
    expect(await screen.findByText(/This change needs approval by a user with the permission Edit Fees/)).toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: 'Send for approval' }));
    await expect(call).resolves.toEqual({ id: 5, status: 'success' });
  });
});
