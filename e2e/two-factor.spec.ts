/**
 * End-to-end flow of the second factor (issue 27) against a running stack: a
 * user enrols TOTP in Account Security's Two-Factor tab (the code computed
 * here, as an authenticator app would), signs out, signs in with a code, then
 * with a recovery code.
 *
 * ASSUMPTION: a fresh demo stack (see console.spec.ts); the user carries the
 * run's timestamp, so a second run on the same stack works.
 */
import { createHmac } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';

/** base32Decode reads an RFC 4648 base32 key (no padding, spaces ignored). */
function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const ch of text.replace(/[\s=]/g, '').toUpperCase()) {
    const i = alphabet.indexOf(ch);
    if (i < 0) throw new Error(`not base32: ${ch}`);
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** totp is the RFC 6238 code (HMAC-SHA1, 6 digits) of key for a 30-second step. */
function totp(key: Buffer, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', key).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const n = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, '0');
}

const stepNow = () => Math.floor(Date.now() / 30_000);

/** awayFromStepEdge waits while the current step has under 5 s left. */
async function awayFromStepEdge(page: Page) {
  const left = 30_000 - (Date.now() % 30_000);
  if (left < 5_000) await page.waitForTimeout(left + 300);
}

async function signIn(page: Page, username: string, password: string) {
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
}

async function logout(page: Page) {
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(/\/login$/);
}

test('a user enrols TOTP, then signs in with a code and with a recovery code', async ({ page, browser }) => {
  const username = `e2e-2fa-${Date.now()}`;
  const password = `Sturdy-Harbor-${Date.now()}`;

  // The admin adds the user (a permanent password) through the API.
  const admin = await browser.newPage();
  await admin.goto('/login');
  await signIn(admin, 'admin', DEMO_PASSWORD);
  await expect(admin).toHaveURL(/\/transactions$/);
  const config = (await (await admin.request.get('/config.json')).json()) as { gatewayUrl: string };
  const token = await admin.evaluate(() => localStorage.getItem('accessToken'));
  const roles = (await (await admin.request.get(`${config.gatewayUrl}/api/v1/user/roles`, { headers: { Authorization: `Bearer ${token}` } })).json()) as {
    roles: { id: number; name: string }[];
  };
  const merchantAdmin = roles.roles.find((r) => r.name === 'Merchant Admin');
  const created = await admin.request.post(`${config.gatewayUrl}/api/v1/user/add`, {
    headers: { Authorization: `Bearer ${token}` },
    data: { username, password, roleId: merchantAdmin!.id, merchantIds: [1], isTemporaryPassword: false },
  });
  expect(created.ok(), await created.text()).toBe(true);
  await admin.close();

  // Enrol in the Two-Factor tab.
  await page.goto('/login');
  await signIn(page, username, password);
  await expect(page).toHaveURL(/\/transactions$/);
  await page.goto('/account-security?tab=two-factor');
  await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
  const setup = page.getByRole('dialog', { name: 'Set up two-factor authentication' });
  await setup.getByRole('button', { name: 'Show the key' }).click();
  await expect(setup.getByRole('img', { name: /QR code/ })).toBeVisible();
  const key = base32Decode((await setup.getByTestId('totp-secret').textContent()) ?? '');
  expect(key.length).toBe(20);
  await awayFromStepEdge(page);
  const enrolStep = stepNow();
  await setup.getByLabel('Authentication code').fill(totp(key, enrolStep));
  await setup.getByRole('button', { name: 'Verify and turn on' }).click();
  const saved = page.getByRole('dialog', { name: 'Save your recovery codes' });
  // allTextContents does not wait: wait for the list first (it failed once under load).
  const items = saved.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await expect(items).toHaveCount(10);
  const codes = await items.allTextContents();
  expect(codes).toHaveLength(10);
  await saved.getByRole('button', { name: 'I have saved them' }).click();
  await expect(page.getByText('10 unused recovery codes left.')).toBeVisible();

  // Signed out, the password alone no longer signs in: the code step follows.
  await logout(page);
  await signIn(page, username, password);
  await expect(page.getByRole('heading', { name: 'Two-factor authentication' })).toBeVisible();
  // The enrolment's code was spent: the next step's code (within the ±1 step window).
  await awayFromStepEdge(page);
  await page.getByLabel('Authentication code').fill(totp(key, Math.max(stepNow(), enrolStep + 1)));
  await page.getByRole('button', { name: 'Verify' }).click();
  // Back where the user signed out (the route the Logout remembered, as after a password sign-in).
  await expect(page).toHaveURL(/\/account-security\?tab=two-factor$/);

  // And with a recovery code.
  await logout(page);
  await signIn(page, username, password);
  await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
  await page.getByLabel('Recovery code').fill(codes[4]!);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/account-security\?tab=two-factor$/);
  await expect(page.getByText('9 unused recovery codes left.')).toBeVisible();
});
