/**
 * End-to-end flow of provider credentials (issue 17) against a running
 * stack: the admin loads a collab's credentials, adds and saves values, sees
 * them back masked, and sees the provider use them (the sandbox answers the
 * balance's account id from the saved merchantId); a merchant admin is
 * offered only its own merchants' collabs, by provider.
 *
 * ASSUMPTION: a demo stack (see console.spec.ts): Blue Harbor Shop (merchant
 * 2) has a FbPay collab, Cobalt Travel (merchant 3) a RollingPay one.
 */
import { expect, test, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';

async function signInTo(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

test('the admin saves a collab’s credentials, reads them back masked, and the provider is asked with them', async ({ page }) => {
  const account = `FB-E2E-${Date.now()}`;
  await signInTo(page, 'admin');
  await page.goto('/credentials');
  await expect(page).toHaveTitle('Paygate - Credentials');

  await page.getByRole('button', { name: 'Load Credentials' }).click();
  await expect(page.getByText('Please select a collaboration')).toBeVisible();

  const select = page.getByRole('combobox', { name: 'Select Collaboration' });
  await expect(select.getByRole('option', { name: 'Blue Harbor Shop - FbPay' })).toHaveCount(1);
  await select.selectOption({ label: 'Blue Harbor Shop - FbPay' });
  await page.getByRole('button', { name: 'Load Credentials' }).click();

  const form = page.getByRole('region', { name: 'Credentials' });
  await expect(form).toBeVisible();
  for (const [key, type, value] of [
    ['merchantId', 'Text', account],
    ['apiKey', 'Text', 'sk_e2e_secret'],
    ['auth.timeout', 'Number', '30'],
  ] as const) {
    if ((await form.getByLabel(key, { exact: true }).count()) === 0) {
      await form.getByRole('textbox', { name: 'New field', exact: true }).fill(key);
      await form.getByRole('combobox', { name: 'New field type' }).selectOption({ label: type });
      await form.getByRole('button', { name: 'Add Field' }).click();
    }
    await form.getByLabel(key, { exact: true }).fill(value);
  }
  await form.getByRole('button', { name: 'Save Changes' }).click();
  await expect(page.getByText('Credentials saved')).toBeVisible();

  // Read back: masked until the eye shows them; the number stays a number.
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(form).toBeHidden();
  await page.getByRole('button', { name: 'Load Credentials' }).click();
  const merchantId = form.getByLabel('merchantId', { exact: true });
  await expect(merchantId).toHaveValue(account);
  await expect(merchantId).toHaveAttribute('type', 'password');
  await form.getByRole('button', { name: 'Show merchantId' }).click();
  await expect(merchantId).toHaveAttribute('type', 'text');
  await form.getByRole('button', { name: 'Show auth.timeout' }).click();
  await expect(form.getByLabel('auth.timeout', { exact: true })).toHaveAttribute('type', 'number');
  await expect(form.getByRole('group', { name: 'auth' })).toBeVisible();

  // The provider was asked with them: the sandbox answers the account id from merchantId.
  await page.goto('/balances');
  const row = page.getByRole('row', { name: 'Blue Harbor Shop - FbPay' });
  await expect(row).toContainText(account);
  await expect(row).toContainText('250,000.00');
});

test('a merchant admin is offered its Current Merchant’s collabs by provider', async ({ page }) => {
  await signInTo(page, 'merchant-admin');
  await page.goto('/credentials');
  const select = page.getByRole('combobox', { name: 'Select Provider' });
  // Acme Games (1), the first of its merchants, is the Current Merchant at first: Blue Harbor Shop's FbPay is not offered.
  await expect(page.getByRole('combobox', { name: 'Current Merchant' })).toHaveValue('1');
  await expect(select.getByRole('option', { name: 'GoVip' })).toHaveCount(1);
  await expect(select.getByRole('option', { name: 'FbPay' })).toHaveCount(0);
  await page.getByRole('combobox', { name: 'Current Merchant' }).selectOption({ label: 'Blue Harbor Shop (2)' });
  await expect(select.getByRole('option', { name: 'GoVip' })).toHaveCount(0);
  await expect(select.getByRole('option', { name: 'FbPay' })).toHaveCount(1);
  await expect(select.getByRole('option', { name: 'RollingPay' })).toHaveCount(0);
  await expect(select.getByRole('option', { name: /Cobalt/ })).toHaveCount(0);
  await select.selectOption({ label: 'FbPay' });
  await page.getByRole('button', { name: 'Load Credentials' }).click();
  await expect(page.getByRole('region', { name: 'Credentials' })).toBeVisible();
});

test('a merchant without Credentials Access is kept away from the page', async ({ page }) => {
  await signInTo(page, 'merchant');
  await page.goto('/credentials');
  await expect(page).not.toHaveURL(/\/credentials$/);
});
