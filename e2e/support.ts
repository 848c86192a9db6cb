/**
 * Helpers the specs share: a signed-in page's gateway address and token, and
 * deposits made through the merchant API with them. (Not a spec: Playwright
 * runs only *.spec.ts.)
 */
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
