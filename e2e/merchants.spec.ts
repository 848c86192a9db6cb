/**
 * End-to-end onboarding of a merchant (issue 30) against a running stack:
 * the admin adds a merchant on the Merchants page (which opens the
 * Initialize Collaboration dialog for it), gives it a GoVip collab, creates
 * its API secret (shown once), adds a callback URL with a secret custom
 * header on the Callbacks page, takes a sandbox payment signed with the
 * secret, and sees its callback delivered to the URL with the header;
 * a merchant admin rotates its own merchant's secret on the Callbacks page
 * (the new value shown once) and revokes the new one again.
 *
 * ASSUMPTION: a demo stack (see console.spec.ts): GoVip is a sandbox provider with the GCASH pay type.
 */
import { createHmac } from 'node:crypto';
import { expect, test, type Page } from '@playwright/test';
import { gateway } from './support';

const DEMO_PASSWORD = 'paygate-demo';
const SANDBOX = process.env.PAYGATE_E2E_SANDBOX_URL ?? 'http://127.0.0.1:8085';

async function signIn(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

test('the admin adds a merchant, creates its secret (shown once), and a payment signed with it is taken and called back with a custom header', async ({ page }) => {
  test.setTimeout(120_000);
  const name = `E2E Merchant ${Date.now()}`;
  await signIn(page, 'admin');

  await page.goto('/merchants');
  await page.getByRole('button', { name: 'Add Merchant' }).click();
  const add = page.getByRole('dialog', { name: 'Add Merchant' });
  await add.getByLabel(/^Name/).fill(name);
  await add.getByLabel('Contact email').fill('ops@e2e.example');
  await add.getByRole('button', { name: 'Add' }).click();

  // "Then create its first collaboration": the Providers page's dialog, for the new merchant.
  await expect(page).toHaveURL(/\/providers$/);
  const init = page.getByRole('dialog', { name: 'Initialize Collaboration' });
  await expect(init).toBeVisible();
  await init.getByRole('button', { name: 'Cancel' }).click();

  const { url, headers } = await gateway(page);
  const merchants = (await (await page.request.get(`${url}/api/v1/merchants`, { headers })).json()) as { id: number; name: string; hash: string }[];
  const merchant = merchants.find((m) => m.name === name)!;
  expect(merchant).toBeTruthy();
  const providers = (await (await page.request.get(`${url}/api/v1/providers`, { headers })).json()) as {
    id: number;
    name: string;
    payTypes: { id: number; code: string }[];
  }[];
  const govip = providers.find((p) => p.name === 'GoVip')!;
  const gcash = govip.payTypes.find((p) => p.code === 'GCASH')!;
  const collab = await page.request.post(`${url}/api/v1/collabs/initialize`, {
    headers,
    data: { ProviderId: govip.id, MerchantId: merchant.id, PayTypeIds: [gcash.id] },
  });
  expect(collab.ok(), await collab.text()).toBe(true);

  await page.goto('/merchants');
  await page.getByRole('row', { name: new RegExp(name) }).getByRole('button', { name: 'Credentials' }).click();
  await page.getByRole('dialog', { name: `Credentials - ${name}` }).getByRole('button', { name: 'Create secret' }).click();
  await page.getByRole('dialog', { name: 'Create secret' }).getByRole('button', { name: 'Create' }).click();
  const shown = page.getByRole('dialog', { name: 'New secret' });
  await expect(shown).toContainText('you will not see it again');
  const secret = (await shown.getByTestId('secret-value').textContent())!.trim();
  expect(secret).toMatch(/^pgs_/);
  await shown.getByRole('button', { name: 'Done' }).click();
  // The list never shows it again.
  const panel = page.getByRole('dialog', { name: `Credentials - ${name}` });
  await expect(panel.getByRole('table', { name: 'Secrets' })).toContainText('active');
  await expect(panel).not.toContainText(secret);

  // Its callback URL, whose deliveries carry a secret custom header.
  const callbackUrl = `${SANDBOX}/merchant/callbacks`;
  const token = `tok-${Date.now()}`;
  await page.goto('/callbacks');
  await page.getByRole('button', { name: 'Add Callback URL' }).click();
  const addCallback = page.getByRole('dialog', { name: 'Add Callback URL' });
  await expect(addCallback.getByRole('option', { name: `${name} - GoVip` })).toBeAttached();
  await addCallback.getByRole('combobox', { name: 'Collaboration' }).selectOption({ label: `${name} - GoVip` });
  await addCallback.getByRole('textbox', { name: 'Callback URL' }).fill(callbackUrl);
  await addCallback.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Callback URL created')).toBeVisible();
  const callbackRow = page.getByRole('table', { name: 'Callback URLs' }).getByRole('row').filter({ hasText: callbackUrl });
  await callbackRow.getByRole('button', { name: `Delivery settings of ${callbackUrl}` }).click();
  const settings = page.getByRole('dialog', { name: 'Delivery settings' });
  await settings.getByRole('button', { name: 'Add header' }).click();
  await settings.getByLabel('Header 1 name').fill('X-Merchant-Token');
  await settings.getByLabel('Header 1 value').fill(token);
  await settings.getByRole('checkbox', { name: 'Header 1 secret' }).check({ force: true });
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings).toBeHidden();
  // The list names the header; its value is never shown again.
  await expect(callbackRow).toContainText('X-Merchant-Token (secret)');
  await expect(page.getByText(token)).toHaveCount(0);

  const body = JSON.stringify({
    paymentData: { nonce: `e2e-${Date.now()}`, amount: '100.00', currency: 'PHP', providerId: govip.id, payType: 'GCASH', providerTags: [] },
    merchantData: { merchantHash: merchant.hash, clientId: 'e2e-client', additionalData: {} },
    cashIn: true,
  });
  const ts = Math.floor(Date.now() / 1000);
  const signature = 'v1=' + createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex');
  const res = await page.request.post(`${url}/api/v1/transactions/initialize`, {
    headers: { 'Content-Type': 'application/json', 'X-Paygate-Merchant': merchant.hash, 'X-Paygate-Timestamp': String(ts), 'X-Paygate-Signature': signature },
    data: body,
  });
  expect(res.ok(), await res.text()).toBe(true);
  const taken = (await res.json()) as { transactionReferenceId: string; id: string };
  expect(taken.transactionReferenceId).toBeTruthy();

  // The sandbox merchant received its outcome, signed, with the header's value.
  await expect
    .poll(
      async () => {
        const got = await page.request.get(`${SANDBOX}/merchant/callbacks?transactionId=${taken.id}`);
        const { callbacks } = (await got.json()) as { callbacks: { signatureValid: boolean; headers?: Record<string, string> }[] };
        return callbacks.map((c) => `${c.signatureValid} ${c.headers?.['X-Merchant-Token'] ?? ''}`);
      },
      { timeout: 30_000 },
    )
    .toContain(`true ${token}`);
});

test("a merchant admin creates its merchant's secret on the Callbacks page and sees it once", async ({ page }) => {
  await signIn(page, 'merchant-admin');
  await page.goto('/callbacks');
  const section = page.getByRole('region', { name: 'API secrets' });
  const table = section.getByRole('table', { name: 'Secrets' });
  // The demo merchant's seeded secret is accepted: a new one is a rotation, with an overlap.
  await expect(table).toContainText('active');
  await section.getByRole('button', { name: 'Rotate' }).click();
  const rotate = page.getByRole('dialog', { name: 'Rotate secret' });
  await expect(rotate.getByRole('textbox', { name: 'Overlap window (hours)' })).toHaveValue('24');
  await rotate.getByRole('button', { name: 'Rotate' }).click();

  const shown = page.getByRole('dialog', { name: 'New secret' });
  await expect(shown).toContainText('you will not see it again');
  const secret = (await shown.getByTestId('secret-value').textContent())!.trim();
  expect(secret).toMatch(/^pgs_/);
  const id = /Secret (\d+) for merchant hash/.exec((await shown.textContent()) ?? '')?.[1];
  expect(id).toBeTruthy();
  await shown.getByRole('button', { name: 'Done' }).click();
  await expect(shown).toBeHidden();
  // Listed, never shown again; the earlier secret stays accepted for the overlap.
  await expect(table.getByRole('button', { name: `Revoke secret ${id}` })).toBeVisible();
  await expect(table).toContainText('expiring');
  await expect(page.locator('body')).not.toContainText(secret);

  // Leave the demo merchant as it signs: the new secret is revoked again, after a confirmation.
  await table.getByRole('button', { name: `Revoke secret ${id}` }).click();
  const confirm = page.getByRole('alertdialog', { name: 'Revoke secret' });
  await expect(confirm).toContainText(`Revoke secret ${id} of`);
  await confirm.getByRole('button', { name: 'Revoke' }).click();
  await expect(confirm).toBeHidden();
  await expect(table.getByRole('button', { name: `Revoke secret ${id}` })).toHaveCount(0);
});
