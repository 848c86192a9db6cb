/**
 * End-to-end flows of Callbacks and Validation Endpoints (issue 5), against a running stack with the
 * callbacks service and the sandbox's demo merchant (http://127.0.0.1:8085/merchant/...).
 *
 * Run: `make e2e` (a fresh demo stack) or `npm run e2e` against PAYGATE_E2E_URL.
 *
 * Each flow uses a collab no other spec pays through (Blue Harbor Shop - FbPay for callbacks,
 * Cobalt Travel - RollingPay for validation) and removes what it added, so the specs do not
 * disturb each other.
 */
import { expect, test, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';
const SANDBOX = process.env.PAYGATE_E2E_SANDBOX_URL ?? 'http://127.0.0.1:8085';

async function signIn(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

/** Creates a deposit on the Create Transaction page and answers its id. */
async function createTransaction(page: Page, provider: string, merchant: string): Promise<string> {
  await page.goto('/simulate-payment');
  await expect(page.getByRole('option', { name: provider })).toBeAttached();
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: provider });
  await page.getByRole('combobox', { name: 'Pay Type' }).selectOption({ label: 'GCash' });
  await expect(page.getByRole('option', { name: merchant })).toBeAttached();
  await page.getByRole('combobox', { name: 'Merchant' }).selectOption({ label: merchant });
  await page.getByRole('button', { name: 'Create Transaction' }).click();
  const created = page.getByRole('status', { name: 'Transaction created' });
  await expect(created).toBeVisible();
  const link = created.getByRole('link', { name: /^View transaction \d+$/ });
  const id = ((await link.textContent()) ?? '').replace('View transaction ', '').trim();
  expect(id).toMatch(/^\d+$/);
  return id;
}

const row = (page: Page, id: string) => page.getByTestId(`transaction-${id}`);

test('a callback URL on the demo merchant receives a signed callback, listed as an attempt', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  const url = `${SANDBOX}/merchant/callbacks`;

  // Add the callback URL.
  await page.goto('/callbacks');
  await expect(page).toHaveTitle('Paygate - Callbacks');
  await page.getByRole('button', { name: 'Add Callback URL' }).click();
  const add = page.getByRole('dialog', { name: 'Add Callback URL' });
  await expect(add.getByRole('option', { name: 'Blue Harbor Shop - FbPay' })).toBeAttached();
  await add.getByRole('combobox', { name: 'Collaboration' }).selectOption({ label: 'Blue Harbor Shop - FbPay' });
  await add.getByRole('textbox', { name: 'Callback URL' }).fill(url);
  await expect(add.getByRole('spinbutton', { name: 'Max attempts' })).toHaveValue('3');
  await add.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Callback URL created')).toBeVisible();
  await expect(add).toBeHidden();
  // The URLs' table (the endpoint health table lists each URL too).
  const callbackRow = page.getByRole('table', { name: 'Callback URLs' }).getByRole('row').filter({ hasText: url });
  await expect(callbackRow).toHaveCount(1);

  // Run a transaction through the collab: it succeeds, and the callbacks service delivers its outcome.
  const id = await createTransaction(page, 'FbPay', 'Blue Harbor Shop');

  // The demo merchant received it with a valid signature (it answers 401 otherwise, and records only
  // what it accepted).
  await expect
    .poll(async () => {
      const res = await page.request.get(`${SANDBOX}/merchant/callbacks?transactionId=${id}`);
      const body = (await res.json()) as { callbacks: unknown[] };
      return body.callbacks.length;
    }, { timeout: 30_000 })
    .toBeGreaterThan(0);

  // Its attempt is listed on the Transactions page, and the row's tally reads delivered.
  await page.goto(`/transactions/${id}`);
  await expect(row(page, id)).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(row(page, id).getByRole('img', { name: 'Callbacks delivered: 1 of 1' })).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  // Callbacks is in the row's "More actions" menu for an admin (Edit and Logs are its buttons).
  await row(page, id).getByRole('button', { name: `More actions for transaction ${id}` }).click();
  await page.getByRole('menuitem', { name: 'Callbacks' }).click();
  const attempts = page.getByRole('dialog', { name: `Callback Attempts - ${id}` });
  const attempt = attempts.getByTestId(/^attempt-/);
  await expect(attempt).toHaveCount(1);
  await expect(attempt).toContainText(url);
  await expect(attempt).toContainText('200');
  await expect(attempt).toContainText('Success');
  await attempts.getByRole('button', { name: 'Close' }).first().click();

  // Remove the callback URL again (after confirming).
  await page.goto('/callbacks');
  await page.getByRole('combobox', { name: 'Select Collab' }).selectOption({ label: 'Blue Harbor Shop - FbPay' });
  await callbackRow.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(page.getByText('Callback URL deleted')).toBeVisible();
  await expect(callbackRow).toHaveCount(0);
});

test('validation endpoints in priority order veto a transaction, which fails as Validation Failed', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  const approve = `${SANDBOX}/merchant/validate/approve`;
  const reject = `${SANDBOX}/merchant/validate/reject`;

  await page.goto('/validation-endpoints');
  await expect(page).toHaveTitle('Paygate - Validation Endpoints');
  await expect(page.getByRole('option', { name: 'Cobalt Travel - RollingPay' }).first()).toBeAttached();
  await page.getByRole('combobox', { name: 'Select Collab' }).selectOption({ label: 'Cobalt Travel - RollingPay' });
  await page.getByRole('button', { name: 'Search' }).click();

  async function addEndpoint(url: string, priority: string) {
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    const add = page.getByRole('dialog', { name: 'Add Validation Endpoint' });
    await add.getByRole('combobox', { name: 'Collaboration' }).selectOption({ label: 'Cobalt Travel - RollingPay' });
    await add.getByRole('textbox', { name: 'Endpoint URL' }).fill(url);
    await add.getByRole('spinbutton', { name: 'Priority' }).fill(priority);
    // The switches by their visible labels: Playwright then waits for the dialog to stop moving
    // (a forced check of the hidden input skips that wait and missed it during the dialog's entrance).
    for (const name of ['Awaitable', 'Cash In']) {
      await add.getByText(name, { exact: true }).click();
      await expect(add.getByRole('checkbox', { name })).toBeChecked();
    }
    await add.getByRole('button', { name: 'Save' }).click();
    await expect(add).toBeHidden();
  }
  await addEndpoint(approve, '1');
  await addEndpoint(reject, '2');
  const approveRow = page.getByRole('row').filter({ hasText: approve });
  const rejectRow = page.getByRole('row').filter({ hasText: reject });
  await expect(approveRow).toHaveCount(1);
  await expect(rejectRow).toHaveCount(1);

  // Reorder: the rejecting endpoint is asked first.
  await rejectRow.getByRole('button', { name: 'Edit' }).click();
  const editing = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Save' }) });
  await editing.getByRole('spinbutton', { name: 'Priority' }).fill('1');
  await editing.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Update' }).click();
  await expect(page.getByText('Validation endpoint updated')).toBeVisible();
  await approveRow.getByRole('button', { name: 'Edit' }).click();
  await editing.getByRole('spinbutton', { name: 'Priority' }).fill('2');
  await editing.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Update' }).click();
  await expect(page.getByRole('row').filter({ hasText: approve })).toContainText('2');

  // A deposit through the collab is vetoed by the first endpoint; the second is never asked.
  const id = await createTransaction(page, 'RollingPay', 'Cobalt Travel');
  await page.goto(`/transactions/${id}`);
  await expect(row(page, id).getByLabel('Status Validation Failed')).toBeVisible();
  await row(page, id).getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('dialog', { name: 'Edit transaction' });
  const results = edit.getByRole('region', { name: 'Validation results' }).or(edit.getByLabel('Validation results'));
  await expect(results.getByText(/^AVR-\d+$/)).toHaveCount(2);
  const vetoed = results.getByTestId(/^validation-/).filter({ hasText: reject });
  const unasked = results.getByTestId(/^validation-/).filter({ hasText: approve });
  await expect(vetoed.getByRole('combobox', { name: /^Status of AVR-/ })).toHaveValue('-1');
  await expect(unasked.getByRole('combobox', { name: /^Status of AVR-/ })).toHaveValue('0');
  await edit.getByRole('button', { name: 'Close' }).first().click();

  // Clean up: delete both endpoints after confirming.
  await page.goto('/validation-endpoints');
  await page.getByRole('combobox', { name: 'Select Collab' }).selectOption({ label: 'Cobalt Travel - RollingPay' });
  await page.getByRole('button', { name: 'Search' }).click();
  for (const url of [reject, approve]) {
    const r = page.getByRole('row').filter({ hasText: url });
    await r.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
    await expect(r).toHaveCount(0);
  }
});
