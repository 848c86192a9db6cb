/**
 * End-to-end flow of the Settings page (issue 17), against a running stack:
 * the admin opens Settings from the sidebar, finds a key with the search,
 * changes its value, saves it, and sees the stored value after a reload (and
 * from the API); a user without Settings Access is refused by the console
 * and by the server.
 *
 * Run: `make e2e` (a fresh demo stack) or `npm run e2e` against PAYGATE_E2E_URL.
 *
 * ASSUMPTION: the demo logins of README.md. The test changes
 * BalanceCacheSeconds to a value other than the one it finds, so it can run
 * again on the same stack.
 */
import { expect, test, type Page } from '@playwright/test';
import { gateway } from './support';

const DEMO_PASSWORD = 'paygate-demo';

async function signIn(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByText('Logged in as')).toContainText(username);
}

test('admin changes a setting, and it is stored: seen after a reload and through the API', async ({ page }) => {
  await signIn(page, 'admin');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(page).toHaveTitle('Paygate - Settings');
  const keys = page.getByRole('navigation', { name: 'Setting keys' });
  for (const key of ['BalanceCacheSeconds', 'ExportRetentionHours', 'FraudDetection', 'PollingIntervalSeconds']) {
    await expect(keys.getByRole('button', { name: key, exact: true })).toBeVisible();
  }

  await page.getByRole('searchbox', { name: 'Search settings' }).fill('balance');
  await expect(keys.getByRole('listitem')).toHaveCount(1);
  await keys.getByRole('button', { name: 'BalanceCacheSeconds' }).click();
  await expect(page).toHaveURL(/\/settings\?key=BalanceCacheSeconds$/);

  const form = page.getByRole('form', { name: 'BalanceCacheSeconds value' });
  const input = form.getByRole('textbox', { name: 'BalanceCacheSeconds' });
  const save = page.getByRole('button', { name: 'Save Changes' });
  await expect(input).not.toHaveValue('');
  const before = Number(await input.inputValue());
  const next = before === 42 ? 43 : 42;
  await expect(save).toBeDisabled();
  await input.fill(String(next));
  await expect(save).toBeEnabled();
  await save.click();
  await expect(page.getByText('BalanceCacheSeconds updated')).toBeVisible();
  await expect(save).toBeDisabled();

  await page.reload();
  await expect(page.getByRole('form', { name: 'BalanceCacheSeconds value' }).getByRole('textbox', { name: 'BalanceCacheSeconds' })).toHaveValue(String(next));
  await expect(page.getByText(/last changed by admin/)).toBeVisible();

  const { url, headers } = await gateway(page);
  const stored = await page.request.get(`${url}/api/v1/settings/BalanceCacheSeconds`, { headers });
  expect(stored.status()).toBe(200);
  expect(await stored.json()).toBe(next);
  // A value outside the schema is refused with a sentence naming the key and the rule.
  const refused = await page.request.post(`${url}/api/v1/settings/BalanceCacheSeconds`, { headers, data: 4000 });
  expect(refused.status()).toBe(400);
  expect(((await refused.json()) as { message: string }).message).toContain('BalanceCacheSeconds must be an integer from 0 to 3600');
});

test('a merchant user without Settings Access is refused by the console and the server', async ({ page }) => {
  await signIn(page, 'merchant');
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' })).toHaveCount(0);
  await page.goto('/settings');
  await expect(page).not.toHaveURL(/\/settings/);
  await expect(page.getByRole('navigation', { name: 'Setting keys' })).toHaveCount(0);

  const { url, headers } = await gateway(page);
  for (const [method, path] of [
    ['GET', '/api/v1/settings/keys'],
    ['GET', '/api/v1/settings/BalanceCacheSeconds'],
    ['POST', '/api/v1/settings/BalanceCacheSeconds'],
  ] as const) {
    const res = await page.request.fetch(`${url}${path}`, { method, headers, data: method === 'POST' ? 20 : undefined });
    expect(res.status(), `${method} ${path}`).toBe(403);
  }
});
