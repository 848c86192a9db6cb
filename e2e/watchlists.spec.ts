/**
 * Live watchlists and alerts (issue 29, docs/contracts-watchlists.md), in a real browser against the
 * real services.
 *
 * The admin filters the Transactions page on a merchant client id of this run's own, pins the
 * filter as a watchlist counting the last 15 minutes with the threshold "above 0", then makes a
 * matching deposit through the API: the counter on the strip moves from 0 to 1 over the live
 * stream, the alert toasts once with its link, the sidebar counts it, and the Alerts page lists it
 * until it is acknowledged. The Dashboard shows the same strip.
 */
import { expect, test, type Page } from '@playwright/test';
import { createDeposits, gateway } from './support';

const DEMO_PASSWORD = 'paygate-demo';

async function signIn(page: Page) {
  await page.goto('/login');
  await page.evaluate(() => localStorage.setItem('skipPasskeySetup', new Date(Date.now() + 86_400_000).toISOString()));
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByText('Logged in as')).toContainText('admin');
}

test('a pinned filter counts a new matching payment live and alerts once when it crosses its threshold', async ({ page }) => {
  test.setTimeout(150_000);
  await signIn(page);
  const run = Date.now();
  const clientId = `e2e-watch-${run}`;
  const name = `Watch ${run}`;

  // Pin the page's filter.
  await page.goto(`/transactions?merchantCidFilter=${clientId}`);
  await page.getByRole('button', { name: 'Pin as watchlist' }).click();
  const dialog = page.getByRole('dialog', { name: 'Pin as watchlist' });
  await dialog.getByRole('textbox', { name: 'Name' }).fill(name);
  await dialog.getByRole('combobox', { name: 'Window' }).selectOption('15');
  await dialog.getByText('Alert me when it crosses a threshold').click();
  await dialog.getByRole('textbox', { name: 'Threshold' }).fill('0');
  await dialog.getByRole('button', { name: 'Pin' }).click();
  await expect(dialog).toBeHidden();

  const strip = page.getByRole('region', { name: 'Watchlists' });
  const card = strip.getByRole('link', { name: new RegExp(`^${name}: `) });
  await expect(card).toHaveAccessibleName(`${name}: 0 in the last 15 min`);
  await expect(card.getByText('Alert when above 0')).toBeVisible();

  // A matching payment: the counter moves and the alert toasts, once.
  const started = Date.now();
  await createDeposits(page, [{ clientId, nonce: `e2e-watch-${run}`, amount: '120.00' }]);
  await expect(card).toHaveAccessibleName(`${name}: 1 in the last 15 min`, { timeout: 15_000 });
  console.log(`watchlist value on the page ${Date.now() - started} ms after the payment was accepted`);
  await expect(card.getByText('Alert: above 0')).toBeVisible();
  const toast = page.getByText(`${name}: 1 is above 0 (last 15 min)`);
  await expect(toast).toBeVisible({ timeout: 15_000 });
  await expect(page.getByText('Watchlist alert')).toHaveCount(1);

  // The sidebar counts it; the Alerts page lists it and acknowledges it.
  const alertsLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Alerts/ });
  await expect(alertsLink).toContainText('new alert');
  await alertsLink.click();
  await expect(page).toHaveURL(/\/alerts$/);
  const row = page.getByRole('row').filter({ hasText: `${name}: 1 is above 0 (last 15 min)` });
  await expect(row).toBeVisible();
  await expect(row.getByRole('link', { name: 'Open transactions' })).toHaveAttribute('href', `/transactions?merchantCidFilter=${clientId}`);
  await row.getByRole('button', { name: `Acknowledge ${name} alert` }).click();
  await expect(row.getByText('Acknowledged')).toBeVisible();

  // The Dashboard shows the same strip.
  await page.goto('/');
  await expect(page.getByRole('region', { name: 'Watchlists' }).getByRole('link', { name: `${name}: 1 in the last 15 min` })).toBeVisible();

  // Clean up: the watchlist goes; its alert stays in the history.
  const { url, headers } = await gateway(page);
  const list = (await (await page.request.get(`${url}/api/v1/watchlists`, { headers })).json()) as { watchlists: { id: string; name: string }[] };
  const mine = list.watchlists.find((w) => w.name === name);
  expect(mine).toBeTruthy();
  expect((await page.request.delete(`${url}/api/v1/watchlists/${mine!.id}`, { headers })).ok()).toBe(true);
});
