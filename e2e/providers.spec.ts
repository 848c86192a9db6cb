/**
 * End-to-end flows of the Providers page (issue 3), against a running stack.
 *
 * Run: `make e2e` (a fresh demo stack) or `npm run e2e` against PAYGATE_E2E_URL.
 *
 * ASSUMPTION: the stack is fresh and seeded with the demo data of
 * docs/contracts.md and docs/contracts-providers.md. The admin test creates
 * the collab Blue Harbor Shop × GoVip; against a stack where it already
 * exists it fails saying so. It leaves maintenance mode off.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';
const BANNER = 'New transactions will not be accepted regardless of provider status';

async function signInTo(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Providers' }).click();
  await expect(page).toHaveURL(/\/providers$/);
  await expect(page).toHaveTitle('Paygate - Providers');
}

const card = (page: Page, merchant: string, provider: string) => page.getByRole('article', { name: new RegExp(`^${merchant}\\s*${provider}$`) });

/** toggle flips a Chakra switch or checkbox by its label (the input itself is visually hidden). */
async function toggle(scope: Locator, label: string) {
  await scope.getByText(label, { exact: true }).click();
}

/**
 * toast checks that a toast says `text`, then dismisses it: toasts sit at the
 * top right over the toolbar and stay while the pointer rests on them. Several
 * are dismissed while a dialog is open, which must not close the dialog.
 */
async function toast(page: Page, text: string) {
  const item = page.getByRole('status').filter({ hasText: text }).filter({ has: page.getByRole('button', { name: 'Dismiss notification' }) });
  await expect(item).toBeVisible();
  await item.getByRole('button', { name: 'Dismiss notification' }).click();
  await expect(item).toBeHidden();
}

async function openDialog(page: Page, button: Locator, name: string | RegExp): Promise<Locator> {
  await button.click();
  const dialog = page.getByRole('dialog', { name });
  await expect(dialog).toBeVisible();
  return dialog;
}

test.describe.configure({ mode: 'serial' });

test('admin creates a collab, changes it, and finds every change in Recent Actions', async ({ page }) => {
  test.setTimeout(180_000);
  await signInTo(page, 'admin');
  await expect(page.getByRole('article').first()).toBeVisible();
  await expect(card(page, 'Blue Harbor Shop', 'GoVip'), 'Blue Harbor Shop × GoVip already exists: this test needs a fresh demo stack').toHaveCount(0);

  // Initialize Collaboration.
  const init = await openDialog(page, page.getByRole('button', { name: 'Add' }), 'Initialize Collaboration');
  await expect(init.getByLabel('Provider', { exact: true })).toBeDisabled();
  await init.getByLabel('Merchant', { exact: true }).selectOption({ label: 'Blue Harbor Shop (2)' });
  // Blue Harbor Shop already works with FbPay.
  await expect(init.getByLabel('Provider', { exact: true }).locator('option')).not.toContainText(['FbPay']);
  await init.getByLabel('Provider', { exact: true }).selectOption({ label: 'GoVip' });
  await toggle(init.getByRole('group', { name: 'Pay Types' }), 'GCash (GCASH)');
  await init.getByRole('button', { name: 'Save' }).click();
  const confirmCreate = page.getByRole('alertdialog');
  await expect(confirmCreate.getByText('Are you sure you want to create a new collaboration?')).toBeVisible();
  await confirmCreate.getByRole('button', { name: 'Create' }).click();
  await toast(page, 'Collaboration created');
  const created = card(page, 'Blue Harbor Shop', 'GoVip');
  await expect(created).toBeVisible();
  await expect(created.getByText('Active')).toBeVisible();
  await expect(created.getByLabel('Cash-in 1 of 1 enabled', { exact: true })).toBeVisible();

  // Limits: only the changed values go out.
  const limits = await openDialog(page, created.getByRole('button', { name: 'Limits' }), 'Limits - [Blue Harbor Shop] GoVip');
  const collabLimits = limits.getByRole('group', { name: 'Collab Limits' });
  await collabLimits.getByLabel('Maximal deposit', { exact: true }).fill('25000');
  await limits.getByRole('group', { name: 'GCash (GCASH)' }).getByLabel('Minimal deposit', { exact: true }).fill('100');
  await expect(collabLimits.getByLabel('Maximal deposit', { exact: true })).toHaveAttribute('data-changed', 'true');
  await limits.getByRole('button', { name: 'Save' }).click();
  await expect(limits.getByRole('button', { name: 'Saved ✓' })).toBeDisabled();
  await toast(page, 'Limits saved');
  await expect(collabLimits.getByLabel('Maximal deposit', { exact: true })).toHaveValue('25000.00');
  await limits.getByRole('button', { name: 'Close', exact: true }).first().click();
  await expect(limits).toBeHidden();

  // Settings: merchant callback off, mode Always Success.
  let settings = await openDialog(page, created.getByRole('button', { name: 'Settings' }), 'Settings - [Blue Harbor Shop] GoVip');
  await expect(settings.getByRole('checkbox', { name: 'Merchant callback' })).toBeChecked();
  await toggle(settings, 'Merchant callback');
  await settings.getByLabel('Mode', { exact: true }).selectOption({ label: 'Always Success' });
  await settings.getByRole('button', { name: 'Save' }).click();
  await expect(settings.getByText('Settings saved')).toBeVisible();
  await expect(settings).toBeHidden({ timeout: 5_000 });

  // Add Maya, then remove it.
  settings = await openDialog(page, created.getByRole('button', { name: 'Settings' }), 'Settings - [Blue Harbor Shop] GoVip');
  await expect(settings.getByRole('checkbox', { name: 'Merchant callback' })).not.toBeChecked();
  await expect(settings.getByLabel('Mode', { exact: true })).toHaveValue('2');
  const payTypeToAdd = settings.getByLabel('Pay type to add', { exact: true });
  await expect(payTypeToAdd.locator('option')).toHaveText(['Select a pay type', 'Maya (MAYA)']);
  await payTypeToAdd.selectOption({ label: 'Maya (MAYA)' });
  await settings.getByRole('button', { name: 'Add Pay Type' }).click();
  await toast(page, 'Pay type added');
  await settings.getByRole('button', { name: 'Remove Maya (MAYA)' }).click();
  const confirmDeletion = page.getByRole('alertdialog', { name: 'Confirm Deletion' });
  await expect(confirmDeletion.getByText('Remove Maya (MAYA) from this collaboration?')).toBeVisible();
  await confirmDeletion.getByRole('button', { name: 'Remove' }).click();
  await toast(page, 'Pay type removed');
  await expect(settings.getByRole('button', { name: 'Remove Maya (MAYA)' })).toHaveCount(0);
  await settings.getByRole('button', { name: 'Cancel' }).click();
  await expect(settings).toBeHidden();

  // Disable the collab.
  await created.getByRole('button', { name: 'Disable' }).click();
  await page.getByRole('alertdialog', { name: 'Disable Collaboration' }).getByRole('button', { name: 'Disable' }).click();
  await toast(page, '[Blue Harbor Shop] GoVip is now disabled');
  await expect(created.getByText('Disabled')).toBeVisible();
  await expect(created.getByRole('button', { name: 'Enable' })).toBeVisible();

  // Maintenance on, then off again.
  await page.getByRole('button', { name: 'Enable Maintenance' }).click();
  await page.getByRole('alertdialog', { name: 'Enable Maintenance' }).getByRole('button', { name: 'Enable' }).click();
  await expect(page.getByText(BANNER, { exact: true })).toBeVisible();
  await toast(page, 'Maintenance mode enabled');
  await page.getByRole('button', { name: 'Disable Maintenance' }).click();
  await toast(page, 'Maintenance mode disabled');
  await expect(page.getByText(BANNER, { exact: true })).toBeHidden();
  await expect(page.getByRole('button', { name: 'Enable Maintenance' })).toBeVisible();

  // Every change is in Recent Actions.
  const activity = await openDialog(page, page.getByRole('button', { name: 'Recent Actions' }), 'Recent Collab Actions');
  const actions = activity.getByRole('list', { name: 'Actions' });
  for (const text of [
    /Collaboration Blue Harbor Shop × GoVip created/,
    /Limits of Blue Harbor Shop × GoVip changed/,
    /Limits of GCash \(GCASH\) on Blue Harbor Shop × GoVip changed/,
    /Settings of Blue Harbor Shop × GoVip changed/,
    /Pay types added to Blue Harbor Shop × GoVip: Maya \(MAYA\)/,
    /pay types removed from Blue Harbor Shop × GoVip: Maya \(MAYA\)/,
    /Blue Harbor Shop × GoVip disabled/,
    /maintenance mode enabled/,
    /maintenance mode disabled/,
  ]) {
    await expect(actions.getByText(text).first(), `Recent Actions lists ${text}`).toBeVisible();
  }
  await activity.getByLabel('Severity', { exact: true }).selectOption('critical');
  await expect(actions.getByText(/maintenance mode enabled/).first()).toBeVisible();
  await expect(actions.getByText(/Limits of Blue Harbor Shop/)).toHaveCount(0);
  await activity.getByRole('button', { name: 'Close', exact: true }).first().click();
  await expect(activity).toBeHidden();

  // Per merchant for admins: the merchant's tab.
  await page.getByRole('tab', { name: 'Blue Harbor Shop' }).click();
  await expect(card(page, 'Cobalt Travel', 'RollingPay')).toHaveCount(0);
  const merchantActivity = await openDialog(page, page.getByRole('button', { name: 'Recent Actions' }), 'Recent Actions - Blue Harbor Shop');
  await expect(merchantActivity.getByText(/Collaboration Blue Harbor Shop × GoVip created/).first()).toBeVisible();
});

test("a merchant user sees only their merchant's collabs", async ({ page }) => {
  await signInTo(page, 'merchant');
  const cards = page.getByRole('article');
  await expect(cards.first()).toBeVisible();
  await expect(card(page, 'Acme Games', 'GoVip')).toBeVisible();
  await expect(card(page, 'Acme Games', 'QRPh')).toBeVisible();
  for (const name of await cards.evaluateAll((els) => els.map((e) => e.textContent ?? ''))) {
    expect(name.startsWith('Acme Games'), `card "${name}" belongs to Acme Games`).toBe(true);
  }
  await expect(cards).toHaveCount(2);
  await expect(page.getByRole('tab')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /Maintenance/ })).toHaveCount(0);
  await expect(page.getByText(BANNER, { exact: true })).toHaveCount(0);
});
