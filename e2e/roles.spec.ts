/**
 * Every demo role walks its sidebar (issue 25): each entry opens its own page
 * (no redirect, no "not authorized" text) without one call of the user
 * refused by the server (401 or 403 from the API), and every write control a
 * page shows is one the server lets the user use.
 *
 * A write control is checked by a probe: the call the control makes, sent
 * with the user's token but with a body or an id the server turns down after
 * its authorization (400 or 404), so that nothing changes. A probe answered
 * 401 or 403 means the console shows a control the server refuses. Where the
 * handler asks more than the rule (a global fee), the probe names a real
 * fee: the handler's refusal comes before its validation.
 *
 * ASSUMPTION: a demo stack (docs/contracts.md "Demo data"). The only change
 * is one deposit of Acme Games, made first so that the Transactions page has
 * a row whose controls are checked too.
 */
import { expect, test, type Page } from '@playwright/test';
import { callOfRequest } from '../shell/sdk/src/may-call';
import { ROUTES } from '../shell/sdk/src/route-table';
import { createDeposits, gateway } from './support';

const DEMO_PASSWORD = 'paygate-demo';
const ROLES = ['admin', 'support', 'merchant', 'merchant-admin', 'merchant-finance-manager', 'merchant-support'] as const;
const REFUSED = [401, 403];
const DENIED_TEXT = /You don't have permission|You are not authorized|Access Denied/;

/** watchRefusals records every API answer 401 or 403 the page receives, with the call it answers. */
function watchRefusals(page: Page): string[] {
  const refused: string[] = [];
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (!url.pathname.startsWith('/api/') || !REFUSED.includes(r.status())) return;
    const method = r.request().method();
    refused.push(`${r.status()} ${method} ${url.pathname} (${callOfRequest(method, url.pathname) ?? 'no call of the table'}) on ${page.url()}`);
  });
  return refused;
}

/** Probes sends the calls of visible write controls and records the ones the server refuses. */
class Probes {
  readonly refused: string[] = [];
  readonly sent: string[] = [];
  constructor(private readonly page: Page) {}

  async send(control: string, method: 'POST' | 'PUT' | 'DELETE', path: string, body: unknown = {}, noOp = false) {
    const { url, headers } = await gateway(this.page);
    const res = await this.page.request.fetch(`${url}${path}`, { method, headers, data: body, failOnStatusCode: false });
    this.sent.push(`${control}: ${method} ${path} → ${res.status()}`);
    // Nothing may change: the probe's body or id is refused after authorization (or, noOp, the call changes nothing).
    if (!noOp) expect(res.status(), `${control} (${method} ${path}) must not succeed: ${await res.text()}`).toBeGreaterThanOrEqual(400);
    if (REFUSED.includes(res.status())) this.refused.push(`${control}: ${method} ${path} → ${res.status()} ${await res.text()} on ${this.page.url()}`);
  }

  /** when probes the control's call if the control is on screen. */
  async when(control: string, locator: ReturnType<Page['getByRole']>, method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, noOp = false) {
    if (await locator.first().isVisible()) await this.send(control, method, path, body, noOp);
  }
}

async function signIn(page: Page, username: string) {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).not.toHaveURL(/\/login$/);
}

async function closeDialog(page: Page) {
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
}

/** The write controls of each screen, by route key: each visible one is probed. */
const WRITES: Partial<Record<string, (page: Page, p: Probes) => Promise<void>>> = {
  async providers(page, p) {
    const button = (name: string) => page.getByRole('button', { name, exact: true });
    await p.when('Add', button('Add'), 'POST', '/api/v1/collabs/initialize');
    // The same rule as enabling; disabling a mode that is off changes nothing.
    const maintenance = page.getByRole('button', { name: /^(Enable|Disable) Maintenance$/ });
    if ((await maintenance.isVisible()) && (await maintenance.textContent()) === 'Enable Maintenance') {
      await p.send('Enable Maintenance', 'POST', '/api/v1/maintenance/disable', {}, true);
    }
    const card = page.getByRole('article').first();
    await expect(card).toBeVisible();
    await p.when('Enable/Disable', card.getByRole('button', { name: /^(Enable|Disable)$/ }), 'POST', '/api/v1/collabs/0/activeness?isEnabled=true');

    await card.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('dialog', { name: /^Settings - / });
    await expect(settings.getByRole('checkbox', { name: 'Enabled', exact: true })).toBeVisible();
    await p.when('Settings Save', settings.getByRole('button', { name: 'Save' }), 'POST', '/api/v1/collabs/settings');
    await p.when('Remove pay type', settings.getByRole('button', { name: /^Remove / }), 'DELETE', '/api/v1/0/pay-types', []);
    await p.when('Add Pay Type', settings.getByRole('button', { name: 'Add Pay Type' }), 'PUT', '/api/v1/0/pay-types', []);
    await closeDialog(page);

    await card.getByRole('button', { name: 'Limits' }).click();
    const limits = page.getByRole('dialog', { name: /^Limits - / });
    await expect(limits.getByText('Collab Limits', { exact: true })).toBeVisible();
    await p.when('Limits Save', limits.getByRole('button', { name: 'Save' }), 'POST', '/api/v1/merchant/collabs/limits');
    await p.when('Limits Save (pay types)', limits.getByRole('button', { name: 'Save' }), 'POST', '/api/v1/merchants/collabs/pay-type/limits');
    await closeDialog(page);

    const recent = button('Recent Actions');
    if (await recent.isVisible()) {
      await recent.click();
      await expect(page.getByRole('dialog')).toBeVisible();
      await closeDialog(page);
    }
  },
  async transactions(page, p) {
    await p.when('Search in Logs', page.getByRole('button', { name: 'Search in Logs', exact: true }), 'POST', '/api/v1/transactions/search-in-logs');
    await p.when('Export', page.getByRole('button', { name: 'Export', exact: true }), 'POST', '/api/v1/files/export');
    const row = page.locator('[data-testid^="transaction-"]').first();
    // Acme Games' deposit (beforeAll) is listed to every user who sees Acme Games.
    await row.waitFor({ timeout: 5_000 }).catch(() => undefined);
    if (!(await row.isVisible())) return;
    const edit = row.getByRole('button', { name: 'Edit', exact: true });
    if (await edit.isVisible()) {
      await edit.click();
      const dialog = page.getByRole('dialog', { name: 'Edit transaction' });
      await expect(dialog).toBeVisible();
      await p.when('Commit State Change', dialog.getByRole('button', { name: 'Commit State Change' }), 'POST', '/api/v1/transactions/0/status/4');
      await p.when('Add to Transaction Queue', dialog.getByRole('button', { name: 'Add to Transaction Queue' }), 'POST', '/api/v1/transactions/0/enqueue');
      await p.when('Add to Polling Queue', dialog.getByRole('button', { name: 'Add to Polling Queue' }), 'POST', '/api/v1/transactions/0/polling/enqueue');
      await p.when('Add to Callback Queue', dialog.getByRole('button', { name: 'Add to Callback Queue' }), 'POST', '/api/v1/transactions/0/callbacks/enqueue');
      await p.when('Cancel Callbacks Sending', dialog.getByRole('button', { name: 'Cancel Callbacks Sending' }), 'POST', '/api/v1/transactions/0/callbacks/cancel');
      await closeDialog(page);
    }
    const more = row.getByRole('button', { name: /^More actions for transaction / });
    if (await more.isVisible()) {
      await more.click();
      await p.when('Mark Failed', page.getByRole('menuitem', { name: 'Mark Failed' }), 'POST', '/api/v1/transactions/0/cancel');
      await p.when('Manual Load / Mark Success', page.getByRole('menuitem', { name: /^(Manual Load|Mark Success)$/ }), 'POST', '/api/v1/transactions/0/status/4');
      await p.when('Manual Load / Mark Success', page.getByRole('menuitem', { name: /^(Manual Load|Mark Success)$/ }), 'POST', '/api/v1/transactions/0/callbacks/cancel');
      await page.keyboard.press('Escape');
    }
  },
  async callbacks(page, p) {
    await p.when('Add Callback URL', page.getByRole('button', { name: 'Add Callback URL' }), 'POST', '/api/v1/callbacks');
    await p.when('Edit', page.getByRole('button', { name: 'Edit', exact: true }), 'POST', '/api/v1/callbacks/0');
    await p.when('Delete', page.getByRole('button', { name: 'Delete', exact: true }), 'DELETE', '/api/v1/callbacks/0');
  },
  async validationEndpoints(page, p) {
    await p.when('Add', page.getByRole('button', { name: 'Add', exact: true }), 'POST', '/api/v1/collabs/validation-endpoints');
  },
  async fraudManagement(page, p) {
    await p.when('Edit', page.getByRole('button', { name: 'Edit', exact: true }), 'POST', '/api/v1/frauds/0/status/1', { notes: '' });
  },
  async fees(page, p) {
    await p.when('Add Fee', page.getByRole('button', { name: 'Add Fee' }), 'POST', '/api/v1/fees');
    // A real fee: its handler refuses a global fee to a non-admin before it reads the (invalid) body.
    for (const action of ['Edit', 'Delete'] as const) {
      const buttons = page.getByRole('button', { name: new RegExp(`^${action} fee \\d+$`) });
      for (const b of await buttons.all()) {
        const id = ((await b.getAttribute('aria-label')) ?? '').replace(/\D/g, '');
        await p.send(`${action} fee ${id}`, 'PUT', `/api/v1/fees/${id}`);
      }
    }
  },
  async credentials(page, p) {
    await p.when('Save Changes', page.getByRole('button', { name: 'Save Changes' }), 'POST', '/api/v1/credentials?collabId=0');
  },
  async jobs(page, p) {
    await p.when('Enable/Disable job', page.getByRole('button', { name: /^(Enable|Disable) \S+\.\S+/ }), 'POST', '/api/v1/jobs/no-such-job/enabled', { enabled: true });
  },
  async accountSecurity(page, p) {
    const tab = (name: string) => page.getByRole('tab', { name });
    if (await tab('Users Management').isVisible()) {
      await tab('Users Management').click();
      await expect(page.getByRole('table').first()).toBeVisible();
      await p.when('Add User', page.getByRole('button', { name: 'Add User' }), 'POST', '/api/v1/user/add');
      await p.when('Edit user', page.getByRole('button', { name: /^Edit / }), 'PUT', '/api/v1/user');
      await p.when('Change password for a user', page.getByRole('button', { name: /^Change password for / }), 'POST', '/api/v1/user/0/change-password');
    }
    if (await tab('IP Restrictions').isVisible()) {
      await tab('IP Restrictions').click();
      await p.when('Add IP restriction', page.getByRole('button', { name: 'Add', exact: true }), 'POST', '/api/v1/user/users/ips');
    }
    await tab('Active Sessions').click();
  },
  async simulatePayment(page, p) {
    // The handler admits an operator with the role Admin and Create Transactions before it reads the body.
    await p.when('Create Transaction', page.getByRole('button', { name: 'Create Transaction', exact: true }), 'POST', '/api/v1/transactions/initialize');
  },
};

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  await signIn(page, 'admin');
  await createDeposits(page, [{ clientId: 'e2e-roles', nonce: `e2e-roles-${Date.now()}`, amount: '250.00' }]);
  await page.close();
});

for (const role of ROLES) {
  test(`${role}: every sidebar entry opens its page, and nothing shown is refused by the server`, async ({ browser }) => {
    test.setTimeout(90_000);
    const context = await browser.newContext();
    const page = await context.newPage();
    const refused = watchRefusals(page);
    const probes = new Probes(page);
    await signIn(page, role);

    const nav = page.getByRole('navigation', { name: 'Main' });
    await expect(nav.getByRole('link').first()).toBeVisible();
    const links = await nav.getByRole('link').evaluateAll((as) => as.map((a) => [a.textContent ?? '', a.getAttribute('href') ?? '']));
    expect(links.length, 'the sidebar lists entries').toBeGreaterThan(0);

    for (const [label, href] of links) {
      const route = ROUTES.find((r) => r.link === href);
      expect(route, `${label} links to ${href}, a route of the table`).toBeTruthy();
      // By its address: the Approvals entry's name carries the count of pending approvals.
      await nav.locator(`a[href="${href}"]`).click();
      await expect(page, `${label} opens ${href}`).toHaveURL((u) => u.pathname === href);
      await expect(page.getByRole('heading', { name: route!.title, exact: true }), `${label} shows its page`).toBeVisible();
      await expect(page.getByText(DENIED_TEXT), `${label} does not say the user may not see it`).toHaveCount(0);
      await WRITES[route!.key]?.(page, probes);
      // Still on the page the entry opened (no guard moved the user on).
      expect(new URL(page.url()).pathname, `${label} stays on ${href}`).toBe(href);
    }
    // Calls still under way when the walk ended.
    await page.waitForTimeout(500);
    test.info().annotations.push({ type: 'probes', description: probes.sent.join('; ') || 'none' });
    expect(refused, 'API calls of the walk refused with 401/403').toEqual([]);
    expect(probes.refused, 'write controls shown whose calls the server refuses').toEqual([]);
    await context.close();
  });
}
