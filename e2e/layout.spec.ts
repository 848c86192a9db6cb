/**
 * The console's layout at a desktop size (issue 25): the sidebar stays in view, the viewport's
 * height, with Logout always on screen, while the page beside it scrolls.
 *
 * Run: `make e2e` (a fresh demo stack) or `npm run e2e` against PAYGATE_E2E_URL.
 */
import { expect, test } from '@playwright/test';
import { createDeposits } from './support';

test.use({ viewport: { width: 1440, height: 900 } });

test('at 1440×900 the sidebar and its Logout stay in view while a long Transactions page scrolls', async ({ page }) => {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill('paygate-demo');
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
  await page.evaluate(() => localStorage.setItem('skipPasskeySetup', new Date(Date.now() + 86_400_000).toISOString()));

  // Enough rows for a page taller than the window.
  const stamp = Date.now();
  await createDeposits(
    page,
    Array.from({ length: 12 }, (_, i) => ({ clientId: `e2e-layout-${i}`, nonce: `layout-${stamp}-${i}`, amount: `${150 + i}.00` })),
  );
  await page.reload();
  await expect(page.getByTestId(/^transaction-/).first()).toBeVisible();
  await page.getByRole('combobox', { name: 'Rows per page' }).selectOption({ label: '30 / page' });
  await expect.poll(() => page.getByTestId(/^transaction-\d+$/).count()).toBeGreaterThanOrEqual(12);

  const logout = page.getByRole('button', { name: 'Logout' });
  const sidebar = page.getByRole('complementary', { name: 'Sidebar' });
  await expect(logout).toBeInViewport({ ratio: 1 });

  const heights = await page.evaluate(() => ({ page: document.documentElement.scrollHeight, window: window.innerHeight }));
  expect(heights.window).toBe(900);
  expect(heights.page, 'the Transactions page is taller than the window').toBeGreaterThan(heights.window + 100);

  // Scroll the page (the main content) to its end: the sidebar does not move and Logout stays.
  await page.getByRole('main').hover();
  await page.mouse.wheel(0, heights.page);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(100);
  await expect(logout).toBeInViewport({ ratio: 1 });
  const box = await sidebar.boundingBox();
  expect(box?.y).toBe(0);
  expect(box?.height).toBe(900);
  await logout.click();
  await expect(page).toHaveURL(/\/login$/);
});
