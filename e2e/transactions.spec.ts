/**
 * End-to-end flow of Create Transaction and Transactions (issue 4), against a running stack.
 *
 * Run: `make e2e` (a fresh demo stack with the sandbox on 8085) or `npm run e2e` against PAYGATE_E2E_URL.
 *
 * The transaction is a PHP deposit of Acme Games through GoVip (GCash). Its provider tags ask the
 * sandbox to keep it pending for 10 minutes without webhooks (docs/contracts-transactions.md,
 * "Sandbox"), so it is still Pending when it is marked failed. A second tab shows the Transactions
 * page while the first marks the row failed: the second sees the change over the live stream.
 */
import { expect, test, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';

async function signIn(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

const row = (page: Page, id: string) => page.getByTestId(`transaction-${id}`);

async function search(page: Page, text: string) {
  const box = page.getByRole('search', { name: 'Search transactions' });
  await box.getByRole('textbox', { name: 'Search' }).fill(text);
  await box.getByRole('button', { name: 'Search', exact: true }).click();
}

async function pickStatuses(page: Page, names: string[]) {
  await page.getByRole('button', { name: /^Statuses:/ }).click();
  for (const name of names) {
    // Wait for each toggle to take before the next: a live update re-rendering
    // the menu between two quick clicks must not swallow one.
    const item = page.getByRole('menuitemcheckbox', { name, exact: true });
    const was = await item.getAttribute('aria-checked');
    await item.click();
    await expect(item).toHaveAttribute('aria-checked', was === 'true' ? 'false' : 'true');
  }
  await page.keyboard.press('Escape');
}

const today = () => new Date().toISOString().slice(0, 10);
const yesterday = () => new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

test('admin creates a transaction, finds it, filters, reads its logs and marks it failed live', async ({ page, context }) => {
  test.setTimeout(180_000);
  await signIn(page);

  // Create Transaction.
  await page.goto('/simulate-payment');
  await expect(page).toHaveTitle('Paygate - Create Transaction');
  await expect(page.getByRole('option', { name: 'GoVip' })).toBeAttached();
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'GoVip' });
  await page.getByRole('combobox', { name: 'Pay Type' }).selectOption({ label: 'GCash' });
  await expect(page.getByRole('option', { name: 'Acme Games' })).toBeAttached();
  await page.getByRole('combobox', { name: 'Merchant' }).selectOption({ label: 'Acme Games' });
  await page.getByRole('textbox', { name: 'Provider Tags' }).fill('sandbox:outcome=pending-success; sandbox:pending=600s, sandbox:webhook=off');
  await page.getByRole('textbox', { name: 'Client ID' }).fill('e2e-player');
  await page.getByRole('button', { name: 'Create Transaction' }).click();
  const created = page.getByRole('status', { name: 'Transaction created' });
  await expect(created).toBeVisible();
  const link = created.getByRole('link', { name: /^View transaction \d+$/ });
  const id = ((await link.textContent()) ?? '').replace('View transaction ', '').trim();
  const reference = ((await created.locator('strong').textContent()) ?? '').trim();
  expect(id).toMatch(/^\d+$/);
  expect(reference).not.toBe('');

  // Find it by id (the link) and by reference.
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/transactions/${id}$`));
  await expect(page).toHaveTitle('Paygate - Transactions');
  await expect(row(page, id)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Apply Filters' })).toBeDisabled();
  await search(page, reference);
  await expect(page).toHaveURL(new RegExp(`/transactions/${encodeURIComponent(reference)}`));
  await expect(row(page, id)).toBeVisible();
  await expect(page.getByTestId(/^transaction-/)).toHaveCount(1);
  await page.getByRole('button', { name: 'Clear Search' }).click();
  await expect(page).toHaveURL(/\/transactions$/);

  // Filter by collab, status and date.
  await page.getByRole('combobox', { name: 'Select Collab' }).selectOption({ label: 'Acme Games - GoVip' });
  await pickStatuses(page, ['Pending']);
  await expect(page).toHaveURL(/transactionStatusesFilter=3/);
  await expect(row(page, id)).toBeVisible();
  await pickStatuses(page, ['Pending', 'Success']);
  await expect(page).toHaveURL(/transactionStatusesFilter=4(&|$)/);
  await expect(row(page, id)).toHaveCount(0);
  await pickStatuses(page, ['Success', 'Pending']);
  await expect(row(page, id)).toBeVisible();
  // The date range takes typed days (Enter applies them).
  await page.getByRole('textbox', { name: 'Start date' }).fill(yesterday());
  await page.getByRole('textbox', { name: 'End date' }).fill(yesterday());
  await page.getByRole('textbox', { name: 'End date' }).press('Enter');
  await expect(page).toHaveURL(/dateRange=/);
  await expect(row(page, id)).toHaveCount(0);
  await page.getByRole('textbox', { name: 'End date' }).fill(today());
  await page.getByRole('textbox', { name: 'End date' }).press('Enter');
  await expect(row(page, id)).toBeVisible();
  // The calendar shows two months.
  await page.getByRole('button', { name: 'Open calendar' }).click();
  await expect(page.getByRole('grid')).toHaveCount(2);
  await page.keyboard.press('Escape');

  // Its logs.
  await row(page, id).getByRole('button', { name: 'Logs' }).click();
  const logs = page.getByRole('dialog', { name: `Transaction Logs - ${id}` });
  await expect(logs.getByRole('region', { name: 'Initialization' })).toBeVisible();
  await expect(logs.getByRole('region', { name: 'API Request' })).toBeVisible();
  await logs.getByRole('button', { name: 'Close' }).click();
  await expect(logs).toBeHidden();
  await expect(row(page, id).getByLabel('Status Pending')).toBeVisible();

  // Search in Logs finds it by its reference.
  await page.getByRole('button', { name: 'Search in Logs' }).click();
  const finder = page.getByRole('dialog', { name: 'Search Transactions in Logs' });
  await finder.getByRole('combobox', { name: 'Transaction Type' }).selectOption({ label: 'Deposit' });
  await finder.getByRole('textbox', { name: 'Search Term' }).fill(reference);
  await finder.getByLabel('Start').fill(new Date(Date.now() - 10 * 60_000).toISOString().slice(0, 16));
  await finder.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(finder.getByRole('link', { name: id, exact: true })).toHaveAttribute('href', `/transactions/${id}`);
  await finder.getByRole('button', { name: 'Close', exact: true }).first().click();
  await expect(finder).toBeHidden();

  // A second tab marks it failed; this one (showing every status) sees the row change over the live stream.
  await pickStatuses(page, ['Pending']);
  await expect(page).not.toHaveURL(/transactionStatusesFilter/);
  await expect(page.getByLabel('Live updates')).toHaveText('● Live');
  const other = await context.newPage();
  await other.goto(`/transactions/${id}`);
  await other.getByTestId(`transaction-${id}`).getByRole('button', { name: `More actions for transaction ${id}` }).click();
  await other.getByRole('menuitem', { name: 'Mark Failed' }).click();
  // It asks first, naming the transaction, its amount, the new status and the stopped callbacks.
  const question = other.getByRole('alertdialog', { name: 'Mark Failed?' });
  await expect(question).toContainText(`Transaction ${reference} (ID ${id}) of `);
  await expect(question).toContainText('will be set to Cancelled. Its callbacks will be stopped');
  await question.getByRole('button', { name: 'Mark Failed' }).click();
  await expect(other.getByTestId(`transaction-${id}`).getByLabel('Status Cancelled')).toBeVisible();
  await expect(row(page, id).getByLabel('Status Cancelled')).toBeVisible({ timeout: 8_000 });
  await expect(row(page, id).getByRole('button', { name: 'Mark Failed' })).toHaveCount(0);
  await row(page, id).getByRole('button', { name: `More actions for transaction ${id}` }).click();
  await expect(page.getByRole('menuitem', { name: 'Callbacks' })).toBeVisible();
  await expect(page.getByRole('menuitem', { name: 'Mark Failed' })).toHaveCount(0);
  await page.keyboard.press('Escape');
  await other.close();
});

/** createTransactions makes n PHP deposits of Acme Games through GoVip (within the demo collab's limits) with the signed-in admin's token. */
async function createTransactions(page: Page, n: number) {
  const config = (await (await page.request.get('/config.json')).json()) as { gatewayUrl: string };
  const token = await page.evaluate(() => localStorage.getItem('accessToken'));
  const headers = { Authorization: `Bearer ${token}` };
  const merchants = (await (await page.request.get(`${config.gatewayUrl}/api/v1/merchants`, { headers })).json()) as { name: string; hash: string }[];
  const providers = (await (await page.request.get(`${config.gatewayUrl}/api/v1/providers`, { headers })).json()) as { id: number; name: string }[];
  const acme = merchants.find((m) => m.name === 'Acme Games');
  const govip = providers.find((p) => p.name === 'GoVip');
  expect(acme && govip).toBeTruthy();
  for (let i = 0; i < n; i++) {
    const res = await page.request.post(`${config.gatewayUrl}/api/v1/transactions/initialize`, {
      headers,
      data: {
        paymentData: { nonce: `e2e-rows-${Date.now()}-${i}`, amount: '201.99', currency: 'PHP', providerId: govip!.id, payType: 'GCASH', providerTags: [] },
        merchantData: { merchantHash: acme!.hash, clientId: `e2e-rows-${i}`, additionalData: {} },
        cashIn: true,
      },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }
}

test('20 transaction rows fit a 1440×900 screen; the rest of a row\'s actions are in its menu', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page);
  await createTransactions(page, 20);
  await page.goto('/transactions?pageSize=20');
  const rows = page.getByTestId(/^transaction-\d+$/);
  await expect(rows).toHaveCount(20);

  // One line per row: 20 rows take at most 800 px, so they fit a 900 px high screen with the table's header.
  const heights = await rows.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
  for (const h of heights) expect(h).toBeLessThanOrEqual(40);
  const first = await rows.first().boundingBox();
  const last = await rows.last().boundingBox();
  expect(last!.y + last!.height - first!.y).toBeLessThanOrEqual(800);

  // Every action stays reachable: two buttons, the rest in a menu with accessible names.
  const top = rows.first();
  const id = ((await top.getAttribute('data-testid')) ?? '').replace('transaction-', '');
  await expect(top.getByRole('button', { name: 'Edit', exact: true })).toBeVisible();
  await expect(top.getByRole('button', { name: 'Logs', exact: true })).toBeVisible();
  await top.getByRole('button', { name: `More actions for transaction ${id}` }).click();
  const menu = page.getByRole('menu', { name: `More actions for transaction ${id}` });
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('menuitem')).toHaveText(['Callbacks', 'Data', 'Export', 'Search in Logs', 'Mark Failed', /^(Manual Load|Mark Success)$/]);
  await menu.getByRole('menuitem', { name: 'Callbacks' }).click();
  await expect(page.getByRole('dialog', { name: `Callback Attempts - ${id}` })).toBeVisible();
  await page.keyboard.press('Escape');

  // A narrow screen scrolls the table sideways instead of wrapping its rows (at 700 px the
  // columns that always stay fit; at 480 px they do not).
  await page.setViewportSize({ width: 480, height: 900 });
  const narrow = await rows.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
  for (const h of narrow) expect(h).toBeLessThanOrEqual(40);
  const table = page.getByRole('table', { name: 'Transactions' });
  const scroll = await table.evaluate((t) => {
    const area = t.parentElement!;
    return { scrollWidth: area.scrollWidth, clientWidth: area.clientWidth, overflowX: getComputedStyle(area).overflowX };
  });
  expect(scroll.scrollWidth).toBeGreaterThan(scroll.clientWidth);
  expect(['auto', 'scroll']).toContain(scroll.overflowX);
});
