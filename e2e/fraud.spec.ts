/**
 * End-to-end flow of fraud review (issue 17) against a running stack: the
 * admin makes 20 fast deposits for one client of Acme Games and 20 for one
 * client of Cobalt Travel through the merchant API; the gateway's
 * fraud-detection job (every PAYGATE_FRAUD_INTERVAL, 5 s in the local stack)
 * flags each client for velocity (20 payments within 10 minutes, the default
 * threshold); the admin finds Acme's on the Fraud Management page, expands
 * it into its transactions and confirms it with a note; a merchant admin of
 * merchants 1 and 2 sees Acme's fraud, not Cobalt's, and has no Edit button.
 *
 * ASSUMPTION: a fresh demo stack (see console.spec.ts) with the default
 * thresholds; the client ids carry the run's timestamp.
 */
import { expect, test, type Page } from '@playwright/test';
import { gateway } from './support';

const DEMO_PASSWORD = 'paygate-demo';
const PAYMENTS = 20;

async function signIn(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

/** deposit makes `count` PHP GCash deposits for one client of a merchant through one provider. */
async function deposit(page: Page, merchantName: string, providerName: string, clientId: string, count: number) {
  const { url, headers } = await gateway(page);
  const merchants = (await (await page.request.get(`${url}/api/v1/merchants`, { headers })).json()) as { name: string; hash: string }[];
  const providers = (await (await page.request.get(`${url}/api/v1/providers`, { headers })).json()) as { id: number; name: string }[];
  const merchant = merchants.find((m) => m.name === merchantName);
  const provider = providers.find((p) => p.name === providerName);
  expect(merchant && provider).toBeTruthy();
  for (let i = 0; i < count; i++) {
    const res = await page.request.post(`${url}/api/v1/transactions/initialize`, {
      headers,
      data: {
        paymentData: { nonce: `${clientId}-${i}`, amount: '150.00', currency: 'PHP', providerId: provider!.id, payType: 'GCASH', providerTags: [] },
        merchantData: { merchantHash: merchant!.hash, clientId, additionalData: {} },
        cashIn: true,
      },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }
}

/**
 * velocityRow is the row of the velocity fraud of a merchant client id. Not
 * any row naming the client: the same deposits come from one IP address, and
 * when no other payment of the merchant came from that address in the window,
 * the velocity fraud by IP (flagged by the same or a later run of the job)
 * names that client too.
 */
function velocityRow(page: Page, clientId: string) {
  return page.locator('tr', { hasText: `payments from merchant client id ${clientId} within` });
}

/** searchClient filters the list by a client id until its fraud shows (the job runs every few seconds). */
async function searchClient(page: Page, clientId: string) {
  await page.getByLabel('Client ID', { exact: true }).fill(clientId);
  await page.getByRole('button', { name: 'Search' }).click();
}

test('the admin reviews a detected fraud; a merchant admin sees only its merchants\' frauds', async ({ page, browser }) => {
  test.setTimeout(180_000);
  await signIn(page, 'admin');

  // The velocity windows are 10 minutes long from the hour: keep the deposits inside one.
  const toEdge = 600_000 - (Date.now() % 600_000);
  if (toEdge < 40_000) await page.waitForTimeout(toEdge + 1_000);
  const run = Date.now().toString(36);
  const acme = `fraud-e2e-${run}`;
  const cobalt = `fraud-e2e-cobalt-${run}`;
  await deposit(page, 'Acme Games', 'GoVip', acme, PAYMENTS);
  await deposit(page, 'Cobalt Travel', 'RollingPay', cobalt, PAYMENTS);

  await page.goto('/fraud-management');
  await expect(page.getByRole('heading', { name: 'Fraud Management' })).toBeVisible();
  // Admins see the merchant filter; a merchant client id without a merchant is refused.
  await page.getByLabel('Merchant client ID').fill(acme);
  await expect(page.getByText('Select a merchant to filter by merchant client ID.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Search' })).toBeDisabled();
  await page.getByLabel('Merchant', { exact: true }).selectOption({ label: 'Acme Games (1)' });
  await expect(page.getByRole('button', { name: 'Search' })).toBeEnabled();
  await page.getByLabel('Merchant client ID').fill('');
  await page.getByLabel('Merchant', { exact: true }).selectOption({ label: 'All merchants' });

  const row = velocityRow(page, acme);
  await expect(async () => {
    await searchClient(page, acme);
    await expect(row).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });
  await expect(row.getByTestId('fraud-level')).toHaveText('Low');
  await expect(row.getByTestId('fraud-status')).toHaveText('Not Reviewed');
  await expect(row).toContainText(`Velocity: ${PAYMENTS} payments from merchant client id ${acme} within 10 minutes`);

  // Expanded, the row lists the 20 deposits.
  const reference = (await row.locator('td').nth(1).textContent())!.trim();
  await row.getByRole('button', { name: `Show transactions of ${reference}` }).click();
  const txs = page.getByRole('table', { name: `Transactions of ${reference}` });
  await expect(txs.locator('tbody tr')).toHaveCount(PAYMENTS);
  await expect(txs.locator('tbody tr').first()).toContainText('150.00 PHP');
  await expect(txs.locator('tbody tr').first()).toContainText('Acme Games (1)');

  // Confirm it with a note.
  await row.getByRole('button', { name: 'Edit' }).click();
  const dialog = page.getByRole('dialog', { name: 'Manage fraud' });
  await expect(dialog.getByRole('button', { name: 'Save' })).toBeDisabled();
  await dialog.getByLabel('Status').selectOption({ label: 'Denied' });
  await expect(dialog.getByText('A note is required to deny a fraud.')).toBeVisible();
  await dialog.getByLabel('Status').selectOption({ label: 'Confirmed' });
  await dialog.getByLabel('Notes').fill('Twenty deposits in a minute: confirmed in e2e.');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(row.getByTestId('fraud-status')).toHaveText('Confirmed');
  await expect(row.getByTestId('fraud-notes')).toHaveText('Twenty deposits in a minute: confirmed in e2e.');
  await expect(row).toContainText('admin');

  // The admin sees Cobalt Travel's fraud too.
  const cobaltRow = velocityRow(page, cobalt);
  await expect(async () => {
    await searchClient(page, cobalt);
    await expect(cobaltRow).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 60_000 });

  // A merchant admin of merchants 1 and 2: Acme's fraud, not Cobalt's; no merchant filter, no Edit.
  const context = await browser.newContext();
  const merchantPage = await context.newPage();
  await signIn(merchantPage, 'merchant-admin');
  await merchantPage.goto('/fraud-management');
  await expect(merchantPage.getByRole('heading', { name: 'Fraud Management' })).toBeVisible();
  await expect(merchantPage.getByLabel('Merchant', { exact: true })).toHaveCount(0);
  await searchClient(merchantPage, acme);
  const own = velocityRow(merchantPage, acme);
  await expect(own).toBeVisible();
  await expect(own.getByTestId('fraud-status')).toHaveText('Confirmed');
  await expect(own.getByRole('button', { name: 'Edit' })).toHaveCount(0);
  await searchClient(merchantPage, cobalt);
  await expect(merchantPage.getByText('No frauds match the filters.')).toBeVisible();
  await context.close();
});
