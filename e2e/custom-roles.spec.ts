/**
 * Custom roles end to end (issue 27, docs/access.md): an admin creates a
 * custom role in Account Security's Roles tab and a user holding it, then
 * signs in as that user, who sees exactly the screens its permissions open
 * (the sidebar's entries, each page without a refused call) and is sent away
 * from a route it may not open.
 *
 * ASSUMPTION: a demo stack (docs/contracts.md "Demo data"). It adds one role
 * and one user, both named with a random suffix.
 */
import { expect, test, type Page } from '@playwright/test';
import { ROUTES } from '../shell/sdk/src/route-table';

const DEMO_PASSWORD = 'paygate-demo';
const PASSWORD = 'Custom-Role-Pass-42';
const suffix = Math.random().toString(36).slice(2, 7);
const ROLE = `Finance desk ${suffix}`;
const USERNAME = `desk-${suffix}`;
/** The role's permissions: the transactions, the files and the fees, of the user's own merchants. */
const PERMISSIONS = ['Get Transactions', 'Files Access', 'View Fees'];
/** What they open: spec 01 §2's sidebar conditions, and the routes' guards and calls. */
const ENTRIES = ['Transactions', 'Radar', 'Files', 'Fee Management', 'Approvals', 'Alerts', 'Account Security'];

async function signIn(page: Page, username: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).not.toHaveURL(/\/login$/);
}

/** watchRefusals records every API answer 401 or 403 the page receives. */
function watchRefusals(page: Page): string[] {
  const refused: string[] = [];
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/') && [401, 403].includes(r.status())) refused.push(`${r.status()} ${r.request().method()} ${url.pathname} on ${page.url()}`);
  });
  return refused;
}

test('an admin makes a custom role and a user of it, who sees exactly the permitted screens', async ({ browser }) => {
  // Two sign-ins, two dialogs and a walk through four screens: more than the default minute on a busy machine.
  test.setTimeout(180_000);
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, 'admin', DEMO_PASSWORD);

  // The Roles tab: the matrix, then a new role from the dialog.
  await admin.goto('/account-security?tab=roles');
  const matrix = admin.getByRole('table', { name: 'Permission matrix' });
  await expect(matrix.getByRole('columnheader', { name: /Merchant Admin/ })).toBeVisible();
  await admin.getByRole('button', { name: 'New Role' }).click();
  const roleDialog = admin.getByRole('dialog', { name: 'New Role' });
  await roleDialog.getByLabel('Name').fill(ROLE);
  for (const p of PERMISSIONS) await roleDialog.getByText(p, { exact: true }).click();
  await roleDialog.getByRole('button', { name: 'Save' }).click();
  await expect(roleDialog).toHaveCount(0);
  await expect(matrix.getByRole('columnheader', { name: new RegExp(ROLE) })).toBeVisible();
  // The search narrows the matrix to the role's column.
  await admin.getByRole('searchbox', { name: 'Search roles and permissions' }).fill(suffix);
  await expect(matrix.getByRole('columnheader')).toHaveCount(2);
  await expect(matrix.getByRole('row', { name: /^View Fees/ })).toContainText('Yes');
  await expect(matrix.getByRole('row', { name: /^Edit Fees/ })).not.toContainText('Yes');

  // A user of the role, with a permanent password, on Acme Games.
  await admin.goto('/account-security?tab=users');
  await admin.getByRole('button', { name: 'Add User' }).click();
  const userDialog = admin.getByRole('dialog', { name: 'Add User' });
  await userDialog.getByLabel('Username').fill(USERNAME);
  await userDialog.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await userDialog.getByLabel('Role').selectOption({ label: ROLE });
  await userDialog.getByLabel('Merchants').selectOption({ label: 'Acme Games' });
  await userDialog.getByText('Temporary password', { exact: true }).click();
  await userDialog.getByRole('button', { name: 'Save' }).click();
  await expect(userDialog).toHaveCount(0);
  await adminContext.close();

  // The user of the custom role.
  const context = await browser.newContext();
  const page = await context.newPage();
  const refused = watchRefusals(page);
  await signIn(page, USERNAME, PASSWORD);
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link').first()).toBeVisible();
  expect(await nav.getByRole('link').allTextContents()).toEqual(ENTRIES);

  for (const label of ENTRIES) {
    await nav.getByRole('link', { name: label, exact: true }).click();
    const route = ROUTES.find((r) => r.link === new URL(page.url()).pathname);
    expect(route, `${label} opens a route of the table`).toBeTruthy();
    await expect(page.getByRole('heading', { name: route!.title, exact: true })).toBeVisible();
    await expect(page.getByText(/You don't have permission|You are not authorized|Access Denied/)).toHaveCount(0);
  }
  // Account Security offers no Users Management and no Roles to this user.
  await expect(page.getByRole('tab', { name: 'Roles' })).toHaveCount(0);
  await expect(page.getByRole('tab', { name: 'Users Management' })).toHaveCount(0);

  // A route it may not open: Merchants (admin-wide with Edit Collab) sends it
  // to /transactions (it has no Statistics Access for the dashboard).
  await page.goto('/merchants');
  await expect(page).toHaveURL((u) => u.pathname === '/transactions');
  await expect(page.getByRole('heading', { name: 'Transactions', exact: true })).toBeVisible();
  // A permission route it lacks: the first route it may open instead.
  await page.goto('/settings');
  await expect(page).toHaveURL((u) => u.pathname === '/fees');

  await page.waitForTimeout(500);
  expect(refused, 'API calls refused with 401/403').toEqual([]);
  await context.close();
});
