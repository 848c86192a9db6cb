/**
 * Accessibility of every screen (issue 25): axe-core's WCAG 2 A and AA rules over the login page
 * and every route of the route table (shell/sdk/src/route-table.ts) as admin; the test fails on any
 * serious or critical violation and lists them (rule, count, the elements it names).
 *
 * Run with the rest of the suite: `npm run e2e` against a fresh stack (deploy/local/e2e.sh).
 *
 * The console's CSP stays in force while the pages load and render: axe-core is not added as a
 * script element (script-src has no 'unsafe-inline', so an inline copy would be refused) but
 * evaluated through the DevTools protocol, which the page's policy does not govern. axe-core itself
 * needs no eval.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { ROUTES } from '../shell/sdk/src/route-table';
import { createDeposits } from './support';

const DEMO_PASSWORD = 'paygate-demo';

/** The rule sets the console must meet, and the impacts that fail the test. */
const TAGS = ['wcag2a', 'wcag2aa'];
const FAILING_IMPACTS = new Set(['serious', 'critical']);

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Finding is one failing rule on one page: its id, impact, help text and the elements it names. */
interface Finding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
  /** axe's explanation per element (for contrast: the two colours and the ratio). */
  summaries: string[];
}

/** settled waits until the screen has rendered: the suspense spinner gone, the network quiet. */
async function settled(page: Page) {
  await page.waitForLoadState('networkidle');
  await expect(page.getByLabel('Loading')).toHaveCount(0);
}

/** audit runs axe-core's WCAG 2 A/AA rules on the page and answers its serious and critical findings. */
async function audit(page: Page): Promise<Finding[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')), summaries: v.nodes.map((n) => (n.failureSummary ?? '').replace(/\s+/g, ' ')) }));
  }, TAGS);
  return violations.filter((v) => FAILING_IMPACTS.has(v.impact));
}

/** Every page's findings, in full: written to the test's output folder and attached (axe.json). */
const all: Record<string, Finding[]> = {};

/** report writes a page's findings one rule a line: rule id (impact) ×count: help — the first elements — why the first fails. */
function report(path: string, findings: Finding[]): string[] {
  all[path] = findings;
  return findings.map((f) => `${path}: ${f.id} (${f.impact}) ×${f.targets.length}: ${f.help} — ${f.targets.slice(0, 5).join(' | ')}${f.targets.length > 5 ? ' …' : ''} — ${f.summaries[0] ?? ''}`);
}

test('no screen has a serious or critical WCAG 2 A/AA violation (admin)', async ({ page }) => {
  test.setTimeout(180_000);
  const problems: string[] = [];

  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Login' })).toBeVisible();
  await settled(page);
  problems.push(...report('/login', await audit(page)));

  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
  // A few transactions, so the tables have rows and the dashboard draws its charts.
  const run = Date.now();
  await createDeposits(page, [0, 1, 2].map((i) => ({ clientId: `e2e-a11y-${i}`, nonce: `e2e-a11y-${run}-${i}`, amount: '125.00' })));

  expect(ROUTES.length).toBeGreaterThanOrEqual(16);
  for (const route of ROUTES) {
    // A full load of each route, so the remote that owns it loads the way a bookmark does.
    await page.goto(route.link);
    await settled(page);
    // Admin has no temporary password, so /change-password sends it on; every other route opens.
    if (new URL(page.url()).pathname === route.link) {
      await expect(page.getByRole('heading', { name: route.title, exact: true }).first()).toBeVisible();
      await settled(page);
    }
    const landed = new URL(page.url()).pathname;
    problems.push(...report(landed === route.link ? route.link : `${route.link} (→ ${landed})`, await audit(page)));
  }

  const details = test.info().outputPath('axe.json');
  writeFileSync(details, JSON.stringify(all, null, 2));
  await test.info().attach('axe.json', { path: details, contentType: 'application/json' });
  expect(problems, `serious or critical WCAG 2 A/AA violations:\n${problems.join('\n')}`).toEqual([]);
});
