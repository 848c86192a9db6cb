/**
 * The Transactions table on a 1,024 px wide screen (issue 25): the columns an
 * operator needs (Amount, Status, Created) are in view without scrolling
 * sideways, and every row's actions stay reachable.
 *
 * Run: deploy/local/e2e.sh npx playwright test -c e2e/playwright.config.ts e2e/transactions-layout.spec.ts
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { createDeposits } from './support';

const DEMO_PASSWORD = 'paygate-demo';

async function signIn(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

/**
 * inView tells whether the element is on screen where it is drawn: inside the
 * window, and the topmost thing at its centre (so neither clipped by its
 * scroll area nor under the sticky Actions column).
 */
function inView(el: Locator): Promise<boolean> {
  return el.evaluate((node) => {
    const r = node.getBoundingClientRect();
    if (r.width === 0 || r.left < 0 || r.right > window.innerWidth || r.bottom > window.innerHeight) return false;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !!hit && (hit === node || node.contains(hit));
  });
}

test('at 1024×768 Amount, Status and Created are in view without scrolling, and the row actions are reachable', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1024, height: 768 });
  await signIn(page);
  const stamp = Date.now();
  await createDeposits(page, [
    { clientId: 'e2e-layout-1', nonce: `e2e-layout-${stamp}-1`, amount: '1234.50' },
    { clientId: 'e2e-layout-2', nonce: `e2e-layout-${stamp}-2`, amount: '199.00' },
  ]);
  await page.goto('/transactions');
  const table = page.getByRole('table', { name: 'Transactions' });
  const first = page.getByTestId(/^transaction-\d+$/).first();
  await expect(first).toBeVisible();

  for (const name of ['ID', 'Amount', 'Status', 'Created', 'Actions']) {
    const header = table.getByRole('columnheader', { name, exact: true });
    expect(await inView(header), `the ${name} column is in view`).toBe(true);
  }
  // The row's cells under those headers, too: the amount, the status badge and the date.
  expect(await inView(first.getByText(/ PHP$/))).toBe(true);
  expect(await inView(first.getByLabel(/^Status /))).toBe(true);
  const id = ((await first.getAttribute('data-testid')) ?? '').replace('transaction-', '');
  const more = first.getByRole('button', { name: `More actions for transaction ${id}` });
  expect(await inView(more)).toBe(true);
  expect(await inView(first.getByRole('button', { name: 'Edit', exact: true }))).toBe(true);

  // Nothing was scrolled to get there.
  expect(await page.evaluate(() => window.scrollX)).toBe(0);

  // The row's menu still offers every action.
  await more.click();
  const menu = page.getByRole('menu', { name: `More actions for transaction ${id}` });
  await expect(menu.getByRole('menuitem', { name: 'Mark Failed' })).toBeVisible();
  await page.keyboard.press('Escape');

  // What the narrower table leaves out is in the row's details.
  await first.getByRole('button', { name: `Expand transaction ${id}` }).click();
  const details = page.getByLabel(`Details of transaction ${id}`);
  await expect(details).toContainText('Reference ID');
  await expect(details).toContainText('Acme Games / GoVip');
});

test('wider screens show more columns, lowest priority last, and still need no sideways scroll', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  await createDeposits(page, [{ clientId: 'e2e-layout-wide', nonce: `e2e-layout-wide-${Date.now()}`, amount: '12345.67' }]);
  const always = ['ID', 'Amount', 'Status', 'Created', 'Actions'];
  const widths: [number, string[], string[]][] = [
    [1280, ['Reference ID', 'Callbacks'], ['Merchant / Provider', 'Type']],
    [1440, ['Reference ID', 'Callbacks', 'Merchant / Provider'], ['Type']],
    [1680, ['Reference ID', 'Callbacks', 'Merchant / Provider', 'Type'], []],
  ];
  for (const [width, shown, hidden] of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/transactions');
    const table = page.getByRole('table', { name: 'Transactions' });
    await expect(page.getByTestId(/^transaction-\d+$/).first()).toBeVisible();
    for (const name of [...always, ...shown]) {
      expect(await inView(table.getByRole('columnheader', { name, exact: true })), `${name} in view at ${width} px`).toBe(true);
    }
    for (const name of hidden) await expect(table.getByRole('columnheader', { name, exact: true }), `${name} hidden at ${width} px`).toBeHidden();
    const area = await table.evaluate((t) => ({ scroll: t.parentElement!.scrollWidth, client: t.parentElement!.clientWidth }));
    expect(area.scroll, `no sideways scroll at ${width} px`).toBeLessThanOrEqual(area.client);
  }
});
