/**
 * Four-eyes approval of a sensitive change, signed with passkeys (issue 28,
 * docs/contracts-approvals.md), in a real browser against the real services.
 *
 * Step-up is on for `settings.set` (admin-wide users) and a policy asks for
 * a second user holding Edit User. A requester changes a setting on the
 * Settings page: the confirmation dialog shows the change, the requester's
 * passkey (Chromium's virtual authenticator) signs it, and the change is
 * sent for approval instead of being applied. An approver sees the count in
 * the sidebar, opens the request on the Approvals page, approves it with its
 * own passkey, and the change is applied exactly as requested; the request
 * carries both proofs. The requester also marks a transaction failed: the
 * status override asks for a reason and the passkey, and is applied at once. The global setup turned step-up off for every other
 * spec; this one turns it off again at the end.
 */
import { expect, test, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { createDeposits } from './support';

const DEMO_PASSWORD = 'paygate-demo';
const KEY = 'ExportRetentionHours';

interface Urls {
  authUrl: string;
  gatewayUrl: string;
}

async function urls(request: APIRequestContext): Promise<Urls> {
  return (await (await request.get('/config.json')).json()) as Urls;
}

async function tokenOf(request: APIRequestContext, authUrl: string, username: string, password: string): Promise<string> {
  const res = await request.post(`${authUrl}/api/v1/login`, { data: { username, password } });
  expect(res.ok(), await res.text()).toBe(true);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** addAuthenticator gives the page's browser a platform authenticator that verifies the user without asking. */
async function addAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
}

/** signedInWithPasskey opens a browser of its own for the user, signs in and registers a passkey. */
async function signedInWithPasskey(browser: Browser, username: string, password: string): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await addAuthenticator(page);
  await page.goto('/login');
  await page.evaluate(() => localStorage.setItem('skipPasskeySetup', new Date(Date.now() + 86_400_000).toISOString()));
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByText('Logged in as')).toContainText(username);
  await page.goto('/account-security?tab=passkeys');
  await page.getByRole('button', { name: 'Add Your First Passkey' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add New Passkey' });
  await dialog.getByPlaceholder('e.g., MacBook Pro').fill('E2E key');
  await dialog.getByRole('button', { name: /add|create|save/i }).click();
  await expect(page.getByText('Your passkey has been set up successfully!')).toBeVisible();
  return page;
}

test.describe.configure({ mode: 'serial' });

test('a setting changed by one admin is applied once another approves it, each signing with a passkey', async ({ browser, request }) => {
  test.setTimeout(150_000);
  const { authUrl, gatewayUrl } = await urls(request);
  const admin = await tokenOf(request, authUrl, 'admin', DEMO_PASSWORD);

  // Step-up for settings.set, and a four-eyes policy on it.
  const stepUp = async (actions: string[], scope: string) => {
    const res = await request.put(`${authUrl}/api/v1/sensitive-actions/step-up`, { headers: bearer(admin), data: { actions, scope } });
    expect(res.ok(), await res.text()).toBe(true);
  };
  await stepUp(['settings.set', 'transaction.set_status', 'transaction.cancel', 'bulk.start'], 'admin_wide');
  const policyIds: number[] = [];
  try {
    for (const action of ['settings.set', 'bulk.start']) {
      const created = await request.post(`${authUrl}/api/v1/approval-policies`, {
        headers: bearer(admin),
        data: { policy: { action, approverPermission: 'Edit User' } },
      });
      expect(created.ok(), await created.text()).toBe(true);
      policyIds.push(((await created.json()) as { policy: { id: number } }).policy.id);
    }
    await walk(browser, request, { authUrl, gatewayUrl }, admin);
  } finally {
    // The other specs run without step-up (global-setup.ts).
    for (const id of policyIds) await request.delete(`${authUrl}/api/v1/approval-policies/${id}`, { headers: bearer(admin) });
    await stepUp([], 'none');
  }
});

/** settingOf reads a setting's value in force (the response body is the bare JSON value). */
async function settingOf(request: APIRequestContext, gatewayUrl: string, token: string): Promise<string> {
  const res = await request.get(`${gatewayUrl}/api/v1/settings/${KEY}`, { headers: bearer(token) });
  expect(res.ok(), await res.text()).toBe(true);
  return String(await res.json());
}

async function walk(browser: Browser, request: APIRequestContext, { authUrl, gatewayUrl }: Urls, admin: string) {

  // Two admin-wide users with permanent passwords.
  const roles = (await (await request.get(`${authUrl}/api/v1/user/roles`, { headers: bearer(admin) })).json()) as { roles: { id: number; name: string }[] };
  const adminRole = roles.roles.find((r) => r.name === 'Admin');
  expect(adminRole).toBeTruthy();
  const run = Date.now();
  const password = `Sturdy-Harbor-${run}`;
  const requesterName = `e2e-req-${run}`;
  const approverName = `e2e-apr-${run}`;
  for (const username of [requesterName, approverName]) {
    const res = await request.post(`${authUrl}/api/v1/user/add`, {
      headers: bearer(admin),
      data: { username, password, roleId: adminRole!.id, merchantIds: [], isTemporaryPassword: false },
    });
    expect(res.ok(), await res.text()).toBe(true);
  }

  const current = await settingOf(request, gatewayUrl, admin);
  const next = current === '240' ? '241' : '240';

  // The requester changes the setting: the dialog shows the change, the passkey signs it, and it goes for approval.
  const requester = await signedInWithPasskey(browser, requesterName, password);
  await requester.goto(`/settings?key=${KEY}`);
  const input = requester.getByRole('form', { name: `${KEY} value` }).getByRole('textbox', { name: KEY });
  await expect(input).not.toHaveValue('');
  await input.fill(next);
  await requester.getByRole('button', { name: 'Save Changes' }).click();
  const confirm = requester.getByRole('dialog');
  await expect(confirm.getByRole('list', { name: 'Summary of the change' })).toContainText(KEY);
  await expect(confirm.getByText('This change needs approval by a user with the permission Edit User.')).toBeVisible();
  await confirm.getByLabel(/Reason/).fill('e2e: longer export retention');
  await confirm.getByRole('button', { name: 'Confirm with passkey' }).click();
  await expect(requester.getByText('Sent for approval', { exact: true })).toBeVisible();
  await expect(requester.getByText(`Failed to update ${KEY}`)).toHaveCount(0);
  // Nothing is applied yet.
  expect(await settingOf(request, gatewayUrl, admin)).toBe(current);

  // A status override with step-up: the reason is required, the passkey signs the change, and it is applied at once.
  await createDeposits(requester, [{ clientId: 'e2e-approvals', nonce: `e2e-approvals-${run}`, amount: '175.00' }]);
  await requester.goto('/transactions');
  const top = requester.getByTestId(/^transaction-\d+$/).first();
  await expect(top).toBeVisible();
  const txId = ((await top.getAttribute('data-testid')) ?? '').replace('transaction-', '');
  await top.getByRole('button', { name: `More actions for transaction ${txId}` }).click();
  await requester.getByRole('menuitem', { name: 'Mark Failed' }).click();
  await requester.getByRole('alertdialog', { name: 'Mark Failed?' }).getByRole('button', { name: 'Mark Failed' }).click();
  // The reason comes first (it is part of what is signed), then the summary, then the passkey.
  const override = requester.getByRole('dialog').filter({ has: requester.getByRole('textbox', { name: /Reason/ }) });
  await override.getByRole('button', { name: 'Review the change' }).click();
  await expect(override.getByRole('alert')).toContainText('Enter a reason');
  await override.getByLabel(/Reason/).fill('e2e: the player reported a failed payment');
  await override.getByRole('button', { name: 'Review the change' }).click();
  await expect(override.getByRole('list', { name: 'Summary of the change' })).toBeVisible();
  await override.getByRole('button', { name: 'Confirm with passkey' }).click();
  await expect(override).toBeHidden();
  await expect(requester.getByTestId(`transaction-${txId}`).getByLabel('Status Cancelled')).toBeVisible();

  // The approver sees the count in the sidebar and approves with its own passkey.
  const approver = await signedInWithPasskey(browser, approverName, password);
  const entry = approver.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: /^Approvals/ });
  await expect(entry).toContainText(/\d/, { timeout: 20_000 });
  await entry.click();
  await expect(approver).toHaveURL(/\/approvals$/);
  await expect(approver.getByRole('heading', { name: 'Approvals', exact: true })).toBeVisible();
  const row = approver.getByRole('row').filter({ hasText: requesterName }).first();
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: /^Review request #/ }).click();
  const detail = approver.getByRole('dialog').filter({ hasText: /request #/ });
  await expect(detail).toContainText('e2e: longer export retention');
  await detail.getByRole('button', { name: 'Approve', exact: true }).click();
  const sign = approver.getByRole('dialog').filter({ has: approver.getByRole('button', { name: 'Confirm with passkey' }) });
  await sign.getByRole('button', { name: 'Confirm with passkey' }).click();

  // Applied exactly as requested, with both proofs on the request.
  await expect.poll(() => settingOf(request, gatewayUrl, admin)).toBe(next);
  const approverToken = await tokenOf(request, authUrl, approverName, password);
  const listed = (await (await request.get(`${authUrl}/api/v1/approvals?status=approved&action=settings.set`, { headers: bearer(approverToken) })).json()) as {
    requests: { requestedByUsername: string; status: string; proofs?: unknown[] }[];
  };
  const mine = listed.requests.find((r) => r.requestedByUsername === requesterName);
  expect(mine?.status).toBe('approved');
  expect(mine?.proofs).toHaveLength(2);

  // A bulk action over a filter under a four-eyes policy (issue 29): the requester's run waits for
  // approval, and starts once the approver approves it.
  const bulkReason = `e2e: callbacks no longer wanted ${run}`;
  await createDeposits(requester, [{ clientId: 'e2e-approvals', nonce: `e2e-approvals-bulk-${run}`, amount: '176.00' }]);
  await requester.goto('/transactions');
  const newest = requester.getByTestId(/^transaction-\d+$/).first();
  await expect(newest).toBeVisible();
  const bulkTx = ((await newest.getAttribute('data-testid')) ?? '').replace('transaction-', '');
  await requester.goto(`/transactions/${bulkTx}`);
  await expect(requester.getByTestId(/^transaction-\d+$/)).toHaveCount(1);
  await requester.getByRole('button', { name: 'Bulk actions' }).click();
  await requester.getByRole('menuitem', { name: 'Cancel callbacks…' }).click();
  const bulk = requester.getByRole('dialog', { name: 'Bulk action: Cancel callbacks' });
  const runButton = bulk.getByRole('button', { name: 'Run on 1 transactions' });
  await expect(runButton).toBeVisible();
  await bulk.getByRole('textbox', { name: /Reason/ }).fill(bulkReason);
  await runButton.click();
  const confirmBulk = requester.getByRole('dialog').filter({ has: requester.getByRole('button', { name: 'Confirm with passkey' }) });
  await expect(confirmBulk.getByText('This change needs approval by a user with the permission Edit User.')).toBeVisible();
  const confirmReason = confirmBulk.getByLabel(/Reason/);
  if ((await confirmReason.count()) > 0 && (await confirmReason.inputValue()) === '') await confirmReason.fill(bulkReason);
  await confirmBulk.getByRole('button', { name: 'Confirm with passkey' }).click();
  await expect(bulk.getByRole('status').filter({ hasText: 'Sent for approval' })).toContainText('Sent for approval as request #');
  await expect(requester.getByText('The run was not started')).toHaveCount(0);
  type Runs = { runs?: { reason: string; state: string; applied?: string }[] };
  const runsOf = async () =>
    ((await (await request.get(`${gatewayUrl}/api/v1/bulk-actions`, { headers: bearer(admin) })).json()) as Runs).runs?.filter((r) => r.reason === bulkReason) ?? [];
  expect(await runsOf()).toHaveLength(0);

  await approver.goto('/approvals');
  const bulkRow = approver.getByRole('row').filter({ hasText: 'Start a bulk action' }).filter({ hasText: requesterName }).first();
  await expect(bulkRow).toBeVisible({ timeout: 20_000 });
  await bulkRow.getByRole('button', { name: /^Review request #/ }).click();
  const bulkDetail = approver.getByRole('dialog').filter({ hasText: /request #/ });
  await bulkDetail.getByRole('button', { name: 'Approve', exact: true }).click();
  const signBulk = approver.getByRole('dialog').filter({ has: approver.getByRole('button', { name: 'Confirm with passkey' }) });
  await signBulk.getByRole('button', { name: 'Confirm with passkey' }).click();
  await expect
    .poll(async () => (await runsOf()).map((r) => `${r.state}:${r.applied ?? '0'}`), { timeout: 60_000 })
    .toEqual(['completed:1']);

  await requester.context().close();
  await approver.context().close();
}
