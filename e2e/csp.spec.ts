/**
 * The console's Content-Security-Policy holds on every route: no screen, the REST reference at
 * /docs/ included, makes the browser report a violation (a `securitypolicyviolation` event or a
 * console message about the policy), and the policy really is enforced (an inline script is
 * refused and reported, so a silent detector cannot pass this test).
 *
 * Run with the rest of the suite: `npm run e2e` against a fresh stack (deploy/local/e2e.sh).
 */
import { expect, test, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';

/** Routes admin can open beyond the sidebar's links (the dashboard is the sidebar's '/'). */
const EXTRA_ROUTES = ['/merchants', '/transactions/1', '/change-password', '/no/such/page'];

interface Violation {
  directive: string;
  blocked: string;
  url: string;
}

/** watchViolations records every CSP violation the page reports, from its first script on. */
async function watchViolations(page: Page): Promise<() => Promise<string[]>> {
  const fromConsole: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) fromConsole.push(`console: ${msg.text()}`);
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __cspViolations: Violation[] };
    w.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__cspViolations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, url: document.location.pathname });
    });
  });
  return async () => {
    const events = await page.evaluate(() => (window as unknown as { __cspViolations?: Violation[] }).__cspViolations ?? []);
    const all = [...events.map((v) => `${v.url}: ${v.directive} blocked ${v.blocked}`), ...fromConsole];
    fromConsole.length = 0;
    await page.evaluate(() => {
      (window as unknown as { __cspViolations: Violation[] }).__cspViolations = [];
    });
    return all;
  };
}

/** settled waits until the screen has rendered: the suspense spinner gone, the network quiet. */
async function settled(page: Page) {
  await page.waitForLoadState('networkidle');
  await expect(page.getByLabel('Loading')).toHaveCount(0);
}

test('every console response carries the security headers', async ({ page }) => {
  for (const path of ['/login', '/config.json', '/remotes/transactions/remoteEntry.js', '/docs/', '/no-such-file.js']) {
    const response = await page.request.get(path);
    const headers = response.headers();
    const csp = headers['content-security-policy'] ?? '';
    const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? '';
    expect(scriptSrc, `${path}: script-src`).toContain("'self'");
    expect(scriptSrc, `${path}: script-src`).not.toContain('unsafe');
    expect(csp, `${path}: CSP`).toContain("frame-ancestors 'none'");
    expect(csp, `${path}: CSP`).toMatch(/connect-src 'self' http:\/\/localhost:8081 /);
    expect(headers['x-content-type-options'], path).toBe('nosniff');
    expect(headers['referrer-policy'], path).toBe('no-referrer');
  }
});

test('no route of the console logs a CSP violation', async ({ page }) => {
  // Every route is loaded in full, one after the other: more than a minute on a busy 2-core machine.
  test.setTimeout(180_000);
  const violations = await watchViolations(page);

  await page.goto('/login');
  await expect(page.getByRole('button', { name: 'Login' })).toBeVisible();
  await settled(page);
  expect(await violations(), '/login').toEqual([]);

  // The detector works and the policy is enforced: an inline script is refused and reported.
  const ran = await page.evaluate(() => {
    const w = window as unknown as { __inlineRan?: boolean };
    const script = document.createElement('script');
    script.textContent = 'window.__inlineRan = true;';
    document.head.appendChild(script);
    return w.__inlineRan === true;
  });
  expect(ran, 'an inline script ran: the page has no script-src policy').toBe(false);
  // Both reports arrive (the event and the console message), then the record starts empty again.
  let reported = '';
  await expect.poll(async () => (reported += (await violations()).join('\n'))).toMatch(/script-src[\s\S]*console:|console:[\s\S]*script-src/);

  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).toHaveURL(/\/transactions$/);
  await settled(page);
  expect(await violations(), '/transactions after signing in').toEqual([]);

  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link').first()).toBeVisible();
  const links = await nav.getByRole('link').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  expect(links.length).toBeGreaterThan(10);
  const seen = new Set<string>();
  for (const href of [...links, ...EXTRA_ROUTES]) {
    if (seen.has(href)) continue;
    seen.add(href);
    // A full load of each route, so the remote that owns it loads the way a bookmark does.
    await page.goto(href);
    await settled(page);
    expect(await violations(), href).toEqual([]);
  }

  // The REST reference: Swagger UI renders the specification under the same policy.
  await page.goto('/docs/');
  await expect(page.locator('.swagger-ui .info')).toBeVisible();
  await expect(page.locator('.opblock').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(await violations(), '/docs/').toEqual([]);

  // The merchant integration guide, linked from it: its verification programs load into the page.
  await page.getByRole('link', { name: 'Merchant integration guide' }).click();
  await expect(page).toHaveURL(/\/docs\/guide\/$/);
  await expect(page.getByRole('heading', { name: 'Integrate with Paygate' })).toBeVisible();
  await expect(page.locator('code[data-snippet="./snippets/verify.py"]')).toContainText('def verify(secret, headers, raw_body');
  await expect(page.locator('code[data-snippet="./snippets/verify.mjs"]')).toContainText('export function verify(');
  await page.waitForLoadState('networkidle');
  expect(await violations(), '/docs/guide/').toEqual([]);
});
