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
  for (const name of names) await page.getByRole('menuitemcheckbox', { name, exact: true }).click();
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
  await page.getByLabel('From', { exact: true }).fill(yesterday());
  await page.getByLabel('To', { exact: true }).fill(yesterday());
  await expect(page).toHaveURL(/dateRange=/);
  await expect(row(page, id)).toHaveCount(0);
  await page.getByLabel('To', { exact: true }).fill(today());
  await expect(row(page, id)).toBeVisible();

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
  await other.getByTestId(`transaction-${id}`).getByRole('button', { name: 'Mark Failed' }).click();
  await expect(other.getByTestId(`transaction-${id}`).getByLabel('Status Cancelled')).toBeVisible();
  await expect(row(page, id).getByLabel('Status Cancelled')).toBeVisible({ timeout: 8_000 });
  await expect(row(page, id).getByRole('button', { name: 'Mark Failed' })).toHaveCount(0);
  await other.close();
});
