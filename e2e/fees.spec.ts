/**
 * End-to-end flow of fees (issue 17) against a running stack: the admin adds
 * a fee to a collab, adds a second one the server finds conflicting (the
 * dialog shows the conflict and the winner, and "Save anyway" saves it),
 * edits it with the what-if preview, and deletes both; a merchant user sees
 * its own collab's fees and the global ones, never another merchant's, and
 * has no editing controls.
 *
 * ASSUMPTION: a demo stack (see console.spec.ts): merchant 1 Acme Games with
 * its GoVip collab, merchant 2 Blue Harbor Shop with FbPay, and the demo's
 * global PHP fees. The fees this test adds are USD fees with this run's
 * priority, so a second run on the same stack finds only its own.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { gateway } from './support';

const DEMO_PASSWORD = 'paygate-demo';

async function signIn(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/** fillFee fills the fee dialog: a USD percentage fee on a collab. */
async function fillFee(dialog: Locator, collab: string, value: string, priority: string) {
  await dialog.getByRole('combobox', { name: 'Collab' }).selectOption({ label: collab });
  await dialog.getByRole('combobox', { name: 'Currency from' }).selectOption({ label: 'USD' });
  await dialog.getByRole('combobox', { name: 'Currency to' }).selectOption({ label: 'USD' });
  await dialog.getByLabel('Value (%)').fill(value);
  await dialog.getByLabel('Priority').fill(priority);
}

/** feeRow is the row of the fee whose priority is the run's. */
const feeRow = (page: Page, priority: string, value: string) =>
  page.getByRole('table', { name: 'Fees' }).getByRole('row').filter({ hasText: `${value}%` }).filter({ has: page.getByRole('cell', { name: priority, exact: true }) });

test('an admin adds, conflicts, previews, edits and deletes fees; a merchant sees its own and the global ones', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const priority = String(100_000 + (Date.now() % 800_000));
  await signIn(page, 'admin');

  // The collab filter from the Providers page's Fees button.
  await page.goto('/fees');
  await expect(page.getByRole('heading', { name: 'Fees' })).toBeVisible();
  await expect(page.getByRole('table', { name: 'Fees' }).getByText('Global').first()).toBeVisible();
  await expect(page.getByRole('combobox', { name: 'Rows per page' })).toHaveValue('5');

  // A first fee saves at once.
  await page.getByRole('button', { name: 'Add Fee' }).click();
  let dialog = page.getByRole('dialog', { name: 'Add Fee' });
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByText('Currency from is required.')).toBeVisible();
  await fillFee(dialog, 'Acme Games - GoVip', '1.25', priority);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Fee created')).toBeVisible();

  // The same scope again conflicts: the server names the first fee and the winner.
  await page.getByRole('button', { name: 'Add Fee' }).click();
  dialog = page.getByRole('dialog', { name: 'Add Fee' });
  await fillFee(dialog, 'Acme Games - GoVip', '2.75', '0');
  await dialog.getByRole('button', { name: 'Save' }).click();
  const conflicts = dialog.getByRole('alert', { name: 'Fee conflicts' });
  await expect(conflicts).toContainText('This fee conflicts with');
  await expect(conflicts).toContainText(/fee \d+ wins/);
  await dialog.getByRole('button', { name: 'Save anyway' }).click();
  await expect(dialog).toBeHidden();

  // Both are listed for the collab, and the applied fees name the first (higher priority).
  const { url, headers } = await gateway(page);
  const collabs = (await (await page.request.get(`${url}/api/v1/merchant-collabs`, { headers })).json()) as {
    collabs: { id: number; merchant: { name: string }; provider: { name: string } }[];
  };
  const acme = collabs.collabs.find((c) => c.merchant.name === 'Acme Games' && c.provider.name === 'GoVip')!;
  await page.goto(`/fees?collabId=${acme.id}`);
  await expect(page.getByRole('combobox', { name: 'Collab' })).toHaveValue(String(acme.id));
  await expect(page.getByRole('table', { name: 'Applied fees' })).toBeVisible();
  await page.getByRole('combobox', { name: 'Currency' }).selectOption({ label: 'USD' });
  await page.getByRole('combobox', { name: 'Rows per page' }).selectOption('30');
  const first = feeRow(page, priority, '1.25');
  const second = page.getByRole('table', { name: 'Fees' }).getByRole('row').filter({ hasText: '2.75%' });
  await expect(first).toHaveCount(1);
  await expect(second.first()).toBeVisible();

  // Edit the second with the what-if preview; saving it still conflicts, and is saved anyway.
  await second.first().getByRole('button', { name: /Edit fee/ }).click();
  dialog = page.getByRole('dialog', { name: /Edit Fee \d+/ });
  await dialog.getByLabel('Value (%)').fill('3.5');
  await dialog.getByRole('button', { name: 'Preview impact' }).click();
  await expect(dialog.getByText('Impact over the last 30 days')).toBeVisible();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.getByRole('button', { name: 'Save anyway' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText('Fee updated')).toBeVisible();
  const edited = page.getByRole('table', { name: 'Fees' }).getByRole('row').filter({ hasText: '3.5%' });
  await expect(edited.first()).toBeVisible();

  // A fee of another merchant, for the merchant user not to see.
  await page.getByRole('button', { name: 'Add Fee' }).click();
  dialog = page.getByRole('dialog', { name: 'Add Fee' });
  await fillFee(dialog, 'Blue Harbor Shop - FbPay', '4.75', priority);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();

  // The merchant user: its collab's fees and the global ones, nothing to edit.
  const merchantContext = await browser.newContext();
  const merchant = await merchantContext.newPage();
  await signIn(merchant, 'merchant');
  await merchant.goto('/fees');
  const table = merchant.getByRole('table', { name: 'Fees' });
  await merchant.getByRole('combobox', { name: 'Rows per page' }).selectOption('30');
  await expect(table.getByText('Global').first()).toBeVisible();
  await expect(table.getByRole('row').filter({ hasText: '1.25%' }).first()).toBeVisible();
  await expect(table.getByRole('row').filter({ hasText: '4.75%' })).toHaveCount(0);
  await expect(merchant.getByRole('button', { name: 'Add Fee' })).toHaveCount(0);
  await expect(table.getByRole('button', { name: /Edit fee|Delete fee/ })).toHaveCount(0);
  await merchantContext.close();

  // Delete this run's fees with confirmation.
  await page.getByRole('combobox', { name: 'Collab' }).selectOption('');
  for (const value of ['1.25', '3.5', '4.75']) {
    const row = page.getByRole('table', { name: 'Fees' }).getByRole('row').filter({ hasText: `${value}%` }).first();
    await row.getByRole('button', { name: /Delete fee/ }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect(confirm).toBeHidden();
    await expect(page.getByText('Fee deleted').first()).toBeVisible();
  }
});
