import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { AUTH, server } from '@paygate/devkit/testing/msw';
import type { TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { renderSecurity } from '../../../testing/fixtures';

const ME: TestUser = { username: 'tester', roles: ['Merchant Support'] };
const STATUS = `${AUTH}/api/v1/second-factor`;
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const CODES = Array.from({ length: 10 }, (_, i) => `abcd-efgh-jkmn-pq${i}${i}`);

function status(over: Record<string, unknown> = {}) {
  return { enrolled: false, recoveryCodesLeft: 0, required: false, ...over };
}

describe('Two-Factor tab (issue 27)', () => {
  it('sets up TOTP: QR code and manual key, a first code, then the recovery codes once', async () => {
    let enrolled = false;
    let confirmed: unknown;
    server.use(
      http.get(STATUS, () => HttpResponse.json(enrolled ? status({ enrolled: true, enrolledAt: '2026-01-05T10:00:00Z', recoveryCodesLeft: 10 }) : status({ required: true }))),
      http.post(`${STATUS}/totp/begin`, () =>
        HttpResponse.json({ enrolment: { secret: SECRET, otpauthUrl: `otpauth://totp/Paygate:tester?secret=${SECRET}&issuer=Paygate`, digits: 6, period: 30 } }),
      ),
      http.post(`${STATUS}/totp/confirm`, async ({ request }) => {
        confirmed = await request.json();
        enrolled = true;
        return HttpResponse.json({ recoveryCodes: CODES });
      }),
    );
    const { user } = renderSecurity(ME, 'two-factor');
    expect(await screen.findByText(/requires two-factor authentication/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Set up two-factor authentication' }));
    const dialog = await screen.findByRole('dialog', { name: 'Set up two-factor authentication' });
    await user.click(within(dialog).getByRole('button', { name: 'Show the key' }));
    expect(await within(dialog).findByRole('img', { name: /QR code/ })).toBeInTheDocument();
    expect(within(dialog).getByLabelText('Key to enter by hand')).toHaveTextContent('JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP');

    // A code that is not six digits is not sent.
    const code = within(dialog).getByLabelText('Authentication code');
    await user.type(code, '12345');
    await user.click(within(dialog).getByRole('button', { name: 'Verify and turn on' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Enter the 6 digits your authenticator app shows.');
    expect(confirmed).toBeUndefined();

    await user.type(code, '6');
    await user.click(within(dialog).getByRole('button', { name: 'Verify and turn on' }));
    const saved = await screen.findByRole('dialog', { name: 'Save your recovery codes' });
    expect(confirmed).toEqual({ code: '123456' });
    expect(within(within(saved).getByRole('list', { name: 'Recovery codes' })).getAllByRole('listitem')).toHaveLength(10);
    expect(within(saved).getByText('They are shown only now.')).toBeInTheDocument();
    await user.click(within(saved).getByRole('button', { name: 'I have saved them' }));
    expect(await screen.findByText('10 unused recovery codes left.')).toBeInTheDocument();
    expect(screen.getByText('On')).toBeInTheDocument();
  });

  it("shows the server's refusal of a wrong first code", async () => {
    server.use(
      http.get(STATUS, () => HttpResponse.json(status())),
      http.post(`${STATUS}/totp/begin`, () => HttpResponse.json({ enrolment: { secret: SECRET, otpauthUrl: 'otpauth://totp/Paygate:tester' } })),
      http.post(`${STATUS}/totp/confirm`, () =>
        HttpResponse.json({ code: 'invalid', message: 'code is not the current code of the new key. Check the time of your device and try again.' }, { status: 400 }),
      ),
    );
    const { user } = renderSecurity(ME, 'two-factor');
    await user.click(await screen.findByRole('button', { name: 'Set up two-factor authentication' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Show the key' }));
    await user.type(await within(dialog).findByLabelText('Authentication code'), '000000');
    await user.click(within(dialog).getByRole('button', { name: 'Verify and turn on' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('code is not the current code of the new key.');
  });

  it('regenerates the recovery codes with a recovery code, and warns when few are left', async () => {
    let sent: unknown;
    server.use(
      http.get(STATUS, () => HttpResponse.json(status({ enrolled: true, enrolledAt: '2026-01-05T10:00:00Z', recoveryCodesLeft: 2 }))),
      http.post(`${STATUS}/recovery-codes`, async ({ request }) => {
        sent = await request.json();
        return HttpResponse.json({ recoveryCodes: CODES });
      }),
    );
    const { user } = renderSecurity(ME, 'two-factor');
    expect(await screen.findByText(/2 unused recovery codes left\. Make new ones/)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Regenerate recovery codes' }));
    const dialog = await screen.findByRole('dialog', { name: 'Regenerate recovery codes' });
    await user.click(within(dialog).getByRole('button', { name: 'Use a recovery code instead' }));
    await user.type(within(dialog).getByLabelText('Recovery code'), 'abcd-efgh-jkmn-pq00');
    await user.click(within(dialog).getByRole('button', { name: 'Make new codes' }));
    expect(await screen.findByRole('dialog', { name: 'Your new recovery codes' })).toBeInTheDocument();
    expect(sent).toEqual({ recoveryCode: 'abcd-efgh-jkmn-pq00' });
  });

  it('disables with a current code, after the warning that other sessions end', async () => {
    let enrolled = true;
    let sent: unknown;
    server.use(
      http.get(STATUS, () => HttpResponse.json(enrolled ? status({ enrolled: true, recoveryCodesLeft: 10 }) : status())),
      http.post(`${STATUS}/disable`, async ({ request }) => {
        sent = await request.json();
        enrolled = false;
        return HttpResponse.json({});
      }),
    );
    const { user } = renderSecurity(ME, 'two-factor');
    await user.click(await screen.findByRole('button', { name: 'Disable' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Disable two-factor authentication' });
    expect(within(dialog).getByText(/your other sessions end/)).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('Authentication code'), '654321');
    await user.click(within(dialog).getByRole('button', { name: 'Disable' }));
    await waitFor(() => expect(sent).toEqual({ code: '654321' }));
    expect(await screen.findByRole('button', { name: 'Set up two-factor authentication' })).toBeInTheDocument();
  });

  it('says so when the status cannot be read', async () => {
    server.use(http.get(STATUS, () => new HttpResponse(null, { status: 500 })));
    renderSecurity(ME, 'two-factor');
    expect(await screen.findByText('Failed to load two-factor authentication.')).toBeInTheDocument();
  });
});
