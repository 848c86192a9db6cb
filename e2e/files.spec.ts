/**
 * End-to-end flow of exports (issue 16) against a running stack: the admin
 * filters the transactions by a merchant client id of this run, exports them
 * as CSV through the files remote's 'Export Transactions' wizard (loaded by
 * the transactions page through Module Federation), lands on /files, sees the
 * file reach Success, downloads it and reads its rows back.
 *
 * ASSUMPTION: a fresh demo stack (see console.spec.ts); the transactions this
 * test makes carry the run's timestamp, so a second run on the same stack
 * exports only its own.
 */
import { readFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import { createDeposits } from './support';

const DEMO_PASSWORD = 'paygate-demo';

async function signIn(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

/** parseCSV reads RFC 4180 text (quoted fields, CRLF) into rows of cells. */
function parseCSV(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += c;
  }
  if (cell !== '' || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

test('the filtered transactions exported as CSV from the wizard are the rows of the downloaded file', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  const clientId = `e2e-files-${Date.now()}`;
  const references = await createDeposits(page, ['101.50', '202.25', '303.00'].map((amount, i) => ({ clientId, nonce: `${clientId}-${i}`, amount })));

  // The list, filtered by this run's client id.
  await page.goto(`/transactions?merchantCidFilter=${clientId}`);
  await expect(page.getByTestId(/^transaction-\d+$/)).toHaveCount(3);

  // The wizard: the active filters, then type and format, then columns.
  await page.getByRole('button', { name: 'Export', exact: true }).click();
  const wizard = page.getByRole('dialog', { name: 'Export Transactions' });
  await expect(wizard).toBeVisible();
  await expect(wizard.getByRole('list', { name: 'Active filters' })).toContainText(clientId);
  await wizard.getByRole('button', { name: 'Next' }).click();
  await wizard.getByRole('combobox', { name: 'Export type' }).selectOption({ label: 'Transactions' });
  await wizard.getByRole('radio', { name: 'CSV' }).check({ force: true });
  await wizard.getByRole('button', { name: 'Next' }).click();
  await expect(wizard.getByRole('list', { name: 'Columns' })).toBeVisible();
  await wizard.getByRole('button', { name: 'Export', exact: true }).click();

  // On to /files (after 2 s), where the newest file reaches Success.
  await expect(page).toHaveURL(/\/files$/, { timeout: 15_000 });
  await expect(page).toHaveTitle('Paygate - Files');
  const table = page.getByRole('table', { name: 'Files' });
  const newest = table.getByTestId(/^file-\d+$/).first();
  await expect(newest).toBeVisible();
  // The page refreshes itself every 20 s while a file is processing; a
  // reload is quicker.
  await expect(async () => {
    await page.reload();
    // A reload on a busy machine takes a few seconds to list the files again.
    await expect(newest.getByTestId('file-status')).toHaveText('Success', { timeout: 10_000 });
  }).toPass({ timeout: 90_000 });

  // Download it and read its rows: a header, then the three transactions.
  const downloaded = page.waitForEvent('download');
  await newest.getByRole('button', { name: /^Download / }).click();
  const download = await downloaded;
  expect(download.suggestedFilename()).toMatch(/\.csv$/);
  await expect(page.getByText('Download Started')).toBeVisible();
  const path = await download.path();
  const text = await readFile(path!, 'utf8');
  expect(text.charCodeAt(0)).toBe(0xfeff);
  const rows = parseCSV(text.slice(1));
  const [header, ...data] = rows;
  expect(header).toContain('Reference ID');
  expect(data).toHaveLength(3);
  const refColumn = header!.indexOf('Reference ID');
  expect(data.map((r) => r[refColumn]).sort()).toEqual([...references].sort());
  const amountColumn = header!.indexOf('Amount');
  expect(amountColumn).toBeGreaterThanOrEqual(0);
  expect(data.map((r) => r[amountColumn]).sort()).toEqual(['101.50', '202.25', '303.00']);
});
