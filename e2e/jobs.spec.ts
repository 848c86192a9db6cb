/**
 * End-to-end flow of the Jobs page (issue 14), against a running stack.
 *
 * Run: `make e2e` (a fresh demo stack) or `npm run e2e` against PAYGATE_E2E_URL.
 *
 * ASSUMPTION: the stack runs every service (auth, gateway, callbacks and the
 * aggregator) and each service's background jobs report their runs to the
 * aggregator; a job reports its first run within about 30 seconds of its
 * service starting. The test only reads: it switches no job off.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';

/** The jobs every running service must report (issue 14 "Jobs"); others may be listed too. */
const EXPECTED_JOBS = [
  'gateway.provider-polling',
  'gateway.outbox-relay',
  'gateway.totals-fold',
  'callbacks.delivery-claim',
  'callbacks.outbox-relay',
  'auth.session-cleanup',
  'aggregator.statistics-consumer',
];

/** How long the jobs may take to report their first runs. */
const FIRST_RUNS_WITHIN_MS = 60_000;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** The console's date format (spec 02): 'Mon D, YYYY, HH:MM:SS (UTC±N)'. */
const CONSOLE_TIME = /^([A-Z][a-z]{2}) (\d{1,2}), (\d{4}), (\d{2}):(\d{2}):(\d{2}) \(UTC([+-]\d{1,2})\)$/;

/** consoleTime reads a time the console wrote, or null when it is no such time ('Never'). */
function consoleTime(text: string): Date | null {
  const m = CONSOLE_TIME.exec(text.trim());
  if (!m) return null;
  const [, mon, day, year, hh, mm, ss, offset] = m;
  const local = Date.UTC(Number(year), MONTHS.indexOf(mon!), Number(day), Number(hh), Number(mm), Number(ss));
  return new Date(local - Number(offset) * 3_600_000);
}

async function signInAsAdmin(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page.getByText('Logged in as')).toContainText('admin');
}

/** detail reads the value a card shows for a label ('Last run started' → 'Mar 10, 2026, …'). */
async function detail(card: Locator, label: string): Promise<string> {
  const term = card.getByRole('term').filter({ hasText: label });
  return (await term.locator('xpath=following-sibling::*[1]').textContent())?.trim() ?? '';
}

test('admin sees a card with a recent run for every job of every running service', async ({ page }) => {
  test.setTimeout(FIRST_RUNS_WITHIN_MS + 60_000);
  await signInAsAdmin(page);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
  await expect(page).toHaveURL(/\/jobs$/);
  await expect(page).toHaveTitle('Paygate - Jobs');
  await expect(page.getByRole('heading', { level: 2, name: 'Jobs' })).toBeVisible();
  const openedAt = Date.now();

  // The jobs report within ~30 s of their services starting: refresh until every one has run.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(page.getByText('Job statistics refreshed successfully').first()).toBeVisible({ timeout: 5_000 });
    const missing: string[] = [];
    for (const name of EXPECTED_JOBS) {
      const card = page.getByRole('article', { name, exact: true });
      if ((await card.count()) === 0) {
        missing.push(`${name}: no card`);
        continue;
      }
      const started = await detail(card, 'Last run started');
      if (!consoleTime(started)) missing.push(`${name}: last run started '${started}'`);
    }
    expect(missing, 'jobs without a reported run').toEqual([]);
  }).toPass({ timeout: FIRST_RUNS_WITHIN_MS, intervals: [2_000, 5_000] });

  for (const name of EXPECTED_JOBS) {
    const card = page.getByRole('article', { name, exact: true });
    await expect(card).toBeVisible();
    const [service] = name.split('.');
    await expect(card.getByText(new RegExp(`^Service: ${service}\\b`))).toBeVisible();
    await expect(card.getByText(/^(Running|Idle|Disabled)$/)).toBeVisible();
    // Recent: since this stack started (a fresh e2e stack), not before it or in the future.
    const started = consoleTime(await detail(card, 'Last run started'))!;
    expect(started.getTime(), `${name} last run started`).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(started.getTime(), `${name} last run started`).toBeGreaterThan(openedAt - 6 * 3_600_000);
  }

  // The summary counts them all, each under its own heading.
  const total = page.getByRole('region', { name: 'Total jobs' });
  await expect(total.getByRole('heading', { name: 'Total jobs' })).toBeVisible();
  expect(Number((await total.textContent())?.replace(/\D/g, ''))).toBeGreaterThanOrEqual(EXPECTED_JOBS.length);

  // No switch was touched: every expected job is still enabled.
  for (const name of EXPECTED_JOBS) {
    await expect(page.getByRole('button', { name: `Disable ${name}`, exact: true })).toBeVisible();
  }
});
