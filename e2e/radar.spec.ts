/**
 * The stuck-money radar (issue 29, docs/contracts-radar.md) in a real browser against the real
 * services: an admin sets a tiny SLA for GoVip Maya deposits on the Radar page, a deposit that the
 * sandbox keeps pending (its sandbox tags) appears on the radar with our status and the provider's
 * (asked through the gateway's provider adapter, the sandbox answering), and the SLA is deleted
 * after a confirmation.
 *
 * Run: `make e2e` (a fresh demo stack) or `npm run e2e` against PAYGATE_E2E_URL.
 */
import { expect, test } from '@playwright/test';
import { gateway } from './support';

test('a pending deposit older than a tiny SLA is on the radar with the provider status', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('paygate-demo');
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
  await page.evaluate(() => localStorage.setItem('skipPasskeySetup', new Date(Date.now() + 86_400_000).toISOString()));

  // The sidebar leads to the radar.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Radar' }).click();
  await expect(page.getByRole('heading', { name: 'Radar', exact: true })).toBeVisible();

  // One second for GoVip Maya deposits.
  await page.getByRole('button', { name: 'Add SLA' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add SLA' });
  await dialog.getByLabel('SLA provider').selectOption({ label: 'GoVip' });
  await dialog.getByLabel('SLA pay type').selectOption({ label: 'Maya' });
  await dialog.getByLabel('SLA direction').selectOption({ label: 'Deposits' });
  await dialog.getByLabel(/Overdue after/).fill('0.02');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  const sla = page.getByTestId('sla-row').filter({ hasText: 'GoVip' }).filter({ hasText: 'Maya' });
  await expect(sla).toContainText('1s');

  // A Maya deposit the sandbox keeps pending for ten minutes, without a webhook.
  const { url, headers } = await gateway(page);
  const merchants = (await (await page.request.get(`${url}/api/v1/merchants`, { headers })).json()) as { name: string; hash: string }[];
  const acme = merchants.find((m) => m.name === 'Acme Games')!;
  const res = await page.request.post(`${url}/api/v1/transactions/initialize`, {
    headers,
    data: {
      paymentData: {
        nonce: `radar-${Date.now()}`,
        amount: '321.00',
        currency: 'PHP',
        providerId: 1,
        payType: 'MAYA',
        providerTags: ['sandbox:outcome=pending-success', 'sandbox:pending=10m', 'sandbox:webhook=off'],
      },
      merchantData: { merchantHash: acme.hash, clientId: 'e2e-radar', additionalData: {} },
      cashIn: true,
    },
  });
  expect(res.ok(), await res.text()).toBe(true);
  const created = (await res.json()) as { id: string; transactionStatus: number };
  expect(created.transactionStatus).toBe(3);

  // Past its SLA it is on the radar: our Pending beside the provider's Pending, no mismatch.
  await page.getByLabel('Provider filter').selectOption({ label: 'GoVip' });
  await page.getByLabel('Direction filter').selectOption({ label: 'Deposits' });
  const row = page.getByTestId('radar-row').filter({ has: page.getByRole('link', { name: `Open transaction ${created.id}` }) });
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh provider status' }).click();
    await expect(row).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 20_000 });
  await expect(row.getByTestId('radar-our-status')).toHaveText('Pending');
  await expect(row.getByTestId('radar-provider-status')).toContainText('Pending');
  await expect(row).toHaveAttribute('data-mismatch', 'false');

  // The SLA goes after a confirmation.
  await sla.getByRole('button', { name: /^Delete SLA/ }).click();
  const ask = page.getByRole('alertdialog');
  await expect(ask).toContainText('Delete the SLA for GoVip, Maya, deposit?');
  await ask.getByRole('button', { name: 'Delete' }).click();
  await expect(sla).toHaveCount(0);
});
