/**
 * Helpers the specs share: a signed-in page's gateway address and token, and
 * deposits made through the merchant API with them. (Not a spec: Playwright
 * runs only *.spec.ts.)
 */
import { readFileSync } from 'node:fs';
import { expect, type Page } from '@playwright/test';

/** gateway answers the gateway's URL (from the console's /config.json) and the signed-in user's bearer header. */
export async function gateway(page: Page) {
  const config = (await (await page.request.get('/config.json')).json()) as { gatewayUrl: string };
  const token = await page.evaluate(() => localStorage.getItem('accessToken'));
  return { url: config.gatewayUrl, headers: { Authorization: `Bearer ${token}` } };
}

/** Deposit is one PHP deposit to make: the merchant's client id, its nonce and amount. */
export interface Deposit {
  clientId: string;
  nonce: string;
  amount: string;
}

/**
 * createDeposits makes PHP deposits of Acme Games through GoVip with the
 * signed-in admin's token and answers their reference ids, in order.
 */
export async function createDeposits(page: Page, deposits: Deposit[]): Promise<string[]> {
  const { url, headers } = await gateway(page);
  const merchants = (await (await page.request.get(`${url}/api/v1/merchants`, { headers })).json()) as { name: string; hash: string }[];
  const providers = (await (await page.request.get(`${url}/api/v1/providers`, { headers })).json()) as { id: number; name: string }[];
  const acme = merchants.find((m) => m.name === 'Acme Games');
  const govip = providers.find((p) => p.name === 'GoVip');
  expect(acme && govip).toBeTruthy();
  const references: string[] = [];
  for (const d of deposits) {
    const res = await page.request.post(`${url}/api/v1/transactions/initialize`, {
      headers,
      data: {
        paymentData: { nonce: d.nonce, amount: d.amount, currency: 'PHP', providerId: govip!.id, payType: 'GCASH', providerTags: [] },
        merchantData: { merchantHash: acme!.hash, clientId: d.clientId, additionalData: {} },
        cashIn: true,
      },
    });
    expect(res.ok(), await res.text()).toBe(true);
    references.push(((await res.json()) as { transactionReferenceId: string }).transactionReferenceId);
  }
  return references;
}

/** The rule sets the console must meet (axe-core tags), and the impacts that fail a test. */
const AXE_TAGS = ['wcag2a', 'wcag2aa'];
const FAILING_IMPACTS = new Set(['serious', 'critical']);

/** axe-core's source, read once. */
let axeSource: string | undefined;

/** AxeFinding is one failing rule on one page: its id, impact, help text and the elements it names. */
export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
  /** axe's explanation per element (for contrast: the two colours and the ratio). */
  summaries: string[];
}

/**
 * axeAudit runs axe-core's WCAG 2 A/AA rules on the page as it is and answers its serious and
 * critical findings. The console's CSP stays in force: axe-core is not added as a script element
 * (script-src has no 'unsafe-inline') but evaluated through the DevTools protocol, which the page's
 * policy does not govern; axe-core itself needs no eval.
 */
export async function axeAudit(page: Page): Promise<AxeFinding[]> {
  axeSource ??= readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(axeSource);
  const violations = await page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')), summaries: v.nodes.map((n) => (n.failureSummary ?? '').replace(/\s+/g, ' ')) }));
  }, AXE_TAGS);
  return violations.filter((v) => FAILING_IMPACTS.has(v.impact));
}
