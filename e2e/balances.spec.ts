/**
 * End-to-end flow of balances (issue 17) against a running stack: the admin
 * sees the demo providers' balances (from the sandbox, through the gateway),
 * their total, a raw response with its previews, and refreshes them; a
 * merchant admin sees only its own merchants' collabs; Support is told it is
 * not authorized.
 *
 * ASSUMPTION: a demo stack (see console.spec.ts): Blue Harbor Shop (merchant
 * 2) has a FbPay collab (sandbox balance 250000.00 PHP), Cobalt Travel
 * (merchant 3) a RollingPay one (510250.75 PHP).
 */
import { expect, test, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';

async function signInTo(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

test('the admin sees every balance-reporting collab, the total per currency and the raw answers', async ({ page }) => {
  await signInTo(page, 'admin');
  await page.goto('/balances');
  await expect(page).toHaveTitle('Paygate - Balances');

  const fbpay = page.getByRole('row', { name: 'Blue Harbor Shop - FbPay' });
  const rolling = page.getByRole('row', { name: 'Cobalt Travel - RollingPay' });
  await expect(fbpay).toContainText('250,000.00');
  await expect(fbpay).toContainText('Sandbox');
  await expect(fbpay).toContainText('success');
  await expect(rolling).toContainText('510,250.75');
  await expect(page.getByRole('region', { name: 'Total balance' })).toContainText(/PHP [\d,]+\.\d\d/);
  await expect(page.getByRole('region', { name: 'Last updated' })).not.toContainText(/^Last updated-$/);

  await page.getByRole('button', { name: 'Show raw response of Cobalt Travel - RollingPay' }).click();
  const raw = page.getByRole('group', { name: 'Raw response of Cobalt Travel - RollingPay' });
  await expect(raw).toContainText('availableBalance');
  await expect(raw).toContainText('"510250.75"');

  await page.getByRole('button', { name: /Refresh/ }).click();
  await expect(page.getByText('Balances Updated')).toBeVisible();
});

test('a merchant admin sees only its own merchants’ collabs', async ({ page }) => {
  await signInTo(page, 'merchant-admin');
  await page.goto('/balances');
  await expect(page.getByRole('row', { name: 'FbPay' })).toContainText('250,000.00');
  await expect(page.getByRole('row', { name: 'RollingPay' })).toHaveCount(0);
  await expect(page.getByRole('columnheader', { name: 'Merchant' })).toHaveCount(0);
});

test('Support is not shown the balances', async ({ page }) => {
  await signInTo(page, 'support');
  await page.goto('/balances');
  await expect(page.getByText('You are not authorized to view this page.')).toBeVisible();
  await expect(page.getByRole('table', { name: 'Provider balances' })).toHaveCount(0);
});
