/**
 * axe-core's WCAG 2 A and AA rules over the screens of the transactions
 * remote, as admin (issue 25): no serious or critical violation. The row
 * menu of a transaction is opened too, as its items are coloured.
 *
 * Run: deploy/local/e2e.sh npx playwright test -c e2e/playwright.config.ts e2e/transactions-a11y.spec.ts
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { createDeposits } from './support';

const DEMO_PASSWORD = 'paygate-demo';
// axe's source, evaluated through the browser's devtools protocol: the console's CSP (script-src 'self')
// refuses an injected script tag, and stays as it is.
const AXE = readFileSync(path.resolve(__dirname, '../node_modules/axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

async function signIn(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
}

/** serious runs axe's WCAG 2 A/AA rules on the page and answers its serious and critical violations, one line each. */
async function serious(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Violation[] }> } }).axe;
    return (await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] } })).violations;
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}) ${JSON.stringify(n.target)}: ${n.failureSummary ?? v.help}`));
}

test('the transactions remote’s screens have no serious or critical WCAG 2 A/AA violation', async ({ page }) => {
  test.setTimeout(180_000);
  await signIn(page);
  await createDeposits(page, [{ clientId: 'e2e-a11y', nonce: `e2e-a11y-${Date.now()}`, amount: '150.00' }]);

  const screens: { path: string; ready: (p: Page) => Promise<void> }[] = [
    { path: '/transactions', ready: (p) => expect(p.getByTestId(/^transaction-\d+$/).first()).toBeVisible() },
    { path: '/callbacks', ready: (p) => expect(p.getByRole('heading', { name: 'Callbacks' })).toBeVisible() },
    { path: '/validation-endpoints', ready: (p) => expect(p.getByRole('heading', { name: 'Validation Endpoints' })).toBeVisible() },
    { path: '/fraud-management', ready: (p) => expect(p.getByRole('heading', { name: 'Fraud Management' })).toBeVisible() },
    { path: '/simulate-payment', ready: (p) => expect(p.getByRole('heading', { name: 'Create Transaction' })).toBeVisible() },
  ];
  const found: string[] = [];
  for (const s of screens) {
    await page.goto(s.path);
    await s.ready(page);
    // Let the lists settle (loading skeletons are not what an operator reads).
    await page.waitForLoadState('networkidle');
    found.push(...(await serious(page)).map((v) => `${s.path}: ${v}`));
  }

  // A row's menu, with the manual actions in colour, and a row's details.
  await page.goto('/transactions');
  const first = page.getByTestId(/^transaction-\d+$/).first();
  await expect(first).toBeVisible();
  const id = ((await first.getAttribute('data-testid')) ?? '').replace('transaction-', '');
  await first.getByRole('button', { name: `Expand transaction ${id}` }).click();
  await first.getByRole('button', { name: `More actions for transaction ${id}` }).click();
  await expect(page.getByRole('menuitem', { name: 'Mark Failed' })).toBeVisible();
  found.push(...(await serious(page)).map((v) => `/transactions (row menu open): ${v}`));

  expect(found, found.join('\n')).toEqual([]);
});
