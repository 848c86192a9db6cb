/**
 * End-to-end flow of the filter-wide bulk actions (issue 29, docs/contracts-bulk.md): a bulk resend of
 * failed callbacks over a filter. The sandbox's demo merchant answers 500 at /merchant/callbacks/fail
 * (and records what it got), so every delivery to it fails after its one attempt; the Callbacks page's
 * "Retry failed…" sends them all again through a dry run and a background run.
 *
 * Uses Blue Harbor Shop - FbPay (as callbacks.spec.ts, which runs before or after it, never alongside:
 * one worker) and removes the URL it added.
 */
import { expect, test, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';
const SANDBOX = process.env.PAYGATE_E2E_SANDBOX_URL ?? 'http://127.0.0.1:8085';
const COLLAB = 'Blue Harbor Shop - FbPay';

async function signIn(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

/** Creates a deposit on the Create Transaction page and answers its id. */
async function createTransaction(page: Page): Promise<string> {
  await page.goto('/simulate-payment');
  await expect(page.getByRole('option', { name: 'FbPay' })).toBeAttached();
  await page.getByRole('combobox', { name: 'Provider' }).selectOption({ label: 'FbPay' });
  await page.getByRole('combobox', { name: 'Pay Type' }).selectOption({ label: 'GCash' });
  await expect(page.getByRole('option', { name: 'Blue Harbor Shop' })).toBeAttached();
  await page.getByRole('combobox', { name: 'Merchant' }).selectOption({ label: 'Blue Harbor Shop' });
  await page.getByRole('button', { name: 'Create Transaction' }).click();
  const created = page.getByRole('status', { name: 'Transaction created' });
  await expect(created).toBeVisible();
  const link = created.getByRole('link', { name: /^View transaction \d+$/ });
  const id = ((await link.textContent()) ?? '').replace('View transaction ', '').trim();
  expect(id).toMatch(/^\d+$/);
  return id;
}

/** How many callbacks of a transaction the demo merchant recorded. */
async function received(page: Page, id: string): Promise<number> {
  const res = await page.request.get(`${SANDBOX}/merchant/callbacks?transactionId=${id}`);
  const body = (await res.json()) as { callbacks: unknown[] };
  return body.callbacks.length;
}

test('a bulk resend of failed callbacks over a filter: dry run, reason, run, each failure sent once more', async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  const url = `${SANDBOX}/merchant/callbacks/fail`;

  await page.goto('/callbacks');
  await page.getByRole('button', { name: 'Add Callback URL' }).click();
  const add = page.getByRole('dialog', { name: 'Add Callback URL' });
  await expect(add.getByRole('option', { name: COLLAB })).toBeAttached();
  await add.getByRole('combobox', { name: 'Collaboration' }).selectOption({ label: COLLAB });
  await add.getByRole('textbox', { name: 'Callback URL' }).fill(url);
  await add.getByRole('spinbutton', { name: 'Max attempts' }).fill('1');
  await add.getByRole('button', { name: 'Save' }).click();
  await expect(add).toBeHidden();

  // Two payments whose callbacks fail (one attempt each).
  const ids = [await createTransaction(page), await createTransaction(page)];
  for (const id of ids) await expect.poll(() => received(page, id), { timeout: 30_000 }).toBe(1);

  // Retry failed… over the collab, with a response-code filter: the dry run counts them.
  await page.goto('/callbacks');
  await page.getByRole('combobox', { name: 'Select Collab' }).selectOption({ label: COLLAB });
  // The URLs' table (the endpoint health table lists each URL too).
  const callbackRow = page.getByRole('table', { name: 'Callback URLs' }).getByRole('row').filter({ hasText: url });
  await expect(callbackRow).toHaveCount(1);
  await page.getByRole('button', { name: 'Retry failed…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Retry failed callbacks' });
  await dialog.getByRole('textbox', { name: 'Response code' }).fill('500');
  await expect
    .poll(
      async () => {
        // The deliveries fail shortly after the callbacks arrive: dry-run until both are counted.
        if (await dialog.getByRole('status').isVisible()) {
          await dialog.getByRole('textbox', { name: 'Response code' }).fill('50');
          await dialog.getByRole('textbox', { name: 'Response code' }).fill('500');
        }
        await dialog.getByRole('button', { name: 'Dry run' }).click();
        const text = (await dialog.getByRole('status').textContent()) ?? '';
        return Number(/send ([\d,]+) again/.exec(text)?.[1]?.replace(/,/g, '') ?? 0);
      },
      { timeout: 30_000 },
    )
    .toBeGreaterThanOrEqual(2);
  await dialog.getByRole('textbox', { name: /Reason/ }).fill('receiver fixed, send again');
  await dialog.getByRole('button', { name: /^Retry [\d,]+ deliveries$/ }).click();
  await expect(dialog.getByText(/^Run \d+ is queued/)).toBeVisible();
  await dialog.getByRole('button', { name: 'Close' }).first().click();

  // The run sends each failed callback once more (the receiver still fails: two recorded each).
  for (const id of ids) await expect.poll(() => received(page, id), { timeout: 60_000 }).toBe(2);

  // Clean up.
  await callbackRow.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('alertdialog').getByRole('button', { name: 'Delete' }).click();
  await expect(callbackRow).toHaveCount(0);
});
