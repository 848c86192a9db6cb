/**
 * End-to-end flow of the Financial Dashboard (issue 14), against a running stack with the
 * aggregator (statistics reach it through the gateway host).
 *
 * Run: `make e2e` (a fresh demo stack) or `npm run e2e` against PAYGATE_E2E_URL.
 *
 * The admin notes Total for today, creates deposits through the API, refreshes and sees Total grow
 * (the aggregator's figures follow the gateway's events within seconds). The demo user `merchant`
 * (merchant 1, Acme Games) sees its merchant's figures only, and no per-merchant tabs.
 */
import { expect, test, type Page } from '@playwright/test';
import { createDeposits, gateway } from './support';

const DEMO_PASSWORD = 'paygate-demo';

async function signIn(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

/** figure reads a card's number ('1,234' → 1234). */
async function figure(page: Page, label: string): Promise<number> {
  const card = page.getByRole('list', { name: 'Transactions by status' }).getByRole('listitem').filter({ has: page.getByText(label, { exact: true }) });
  const text = (await card.textContent()) ?? '';
  return Number(text.replace(label, '').replace(/,/g, '').trim());
}

/** openDashboard opens / and returns the statistics answer that matches `merchantId` (absent: any). */
async function openDashboard(page: Page, merchantId?: string) {
  const answer = page.waitForResponse((r) => {
    const u = new URL(r.url());
    return u.pathname === '/api/v1/statistics' && r.request().method() === 'GET' && (merchantId === undefined || u.searchParams.get('merchantId') === merchantId);
  });
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Financial Dashboard' })).toBeVisible();
  const res = await answer;
  expect(res.ok(), await res.text()).toBe(true);
  await expect(page.getByText(/^Last updated:/)).toBeVisible();
  return res;
}

test('admin sees Total grow after creating transactions and refreshing', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin');
  await openDashboard(page);
  await expect(page).toHaveTitle('Paygate - Financial Dashboard');
  await expect(page.getByRole('combobox', { name: 'Time range' })).toHaveValue('1');
  await expect(page.getByRole('tab', { name: 'Cash In' })).toBeVisible();
  await expect(page.getByRole('tab', { name: 'Cash Out' })).toBeVisible();
  const before = await figure(page, 'Total');
  expect(Number.isInteger(before)).toBe(true);

  const run = Date.now();
  await createDeposits(page, [0, 1].map((i) => ({ clientId: `e2e-dashboard-${i}`, nonce: `e2e-dashboard-${run}-${i}`, amount: '250.00' })));

  // The figures follow the events within seconds: refresh until they do.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(page.getByText('Dashboard data has been refreshed').first()).toBeVisible();
    expect(await figure(page, 'Total')).toBeGreaterThanOrEqual(before + 2);
  }).toPass({ timeout: 30_000, intervals: [1_000, 2_000, 3_000] });
});

test('a merchant user sees only its merchant and no per-merchant tabs', async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, 'merchant');
  // The 'Current Merchant' settles on merchant 1 once the sidebar has loaded the user's merchants.
  const res = await openDashboard(page, '1');
  const body = (await res.json()) as { total?: string; byMerchant?: unknown[]; cashInDataByMerchant?: unknown[]; cashOutDataByMerchant?: unknown[] };
  // Merchant 1 is the user's only merchant: the call names it, and the server answers no per-merchant figures.
  expect(new URL(res.url()).searchParams.get('merchantId')).toBe('1');
  expect(body.byMerchant ?? []).toEqual([]);
  expect(body.cashInDataByMerchant ?? []).toEqual([]);
  expect(body.cashOutDataByMerchant ?? []).toEqual([]);
  await expect(page.getByRole('tab', { name: 'Cash In' })).toHaveCount(0);
  await expect(page.getByRole('tab', { name: 'Cash Out' })).toHaveCount(0);
  await expect.poll(() => figure(page, 'Total')).toBe(Number(body.total ?? 0));

  // The server scopes: asking for another merchant is refused.
  const { url, headers } = await gateway(page);
  const from = new URL(res.url()).searchParams.get('from')!;
  const to = new URL(res.url()).searchParams.get('to')!;
  const other = await page.request.get(`${url}/api/v1/statistics`, { headers, params: { currency: 'USD', from, to, merchantId: 2 } });
  expect([403, 404]).toContain(other.status());
});
