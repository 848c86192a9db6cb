/**
 * Global setup of the e2e run: step-up confirmation (issue 28) off for every
 * user, so that no spec but approvals.spec.ts meets the confirmation dialog.
 * Signs in as the demo admin through the API and sets the step-up scope
 * "none"; tokens minted after that carry no `cfm` claim. A stack without the
 * sensitive-actions settings (404) is left as it is.
 */
import { request, type FullConfig } from '@playwright/test';

export default async function globalSetup(config: FullConfig): Promise<void> {
  const baseURL = config.projects[0]?.use.baseURL ?? process.env.PAYGATE_E2E_URL ?? 'http://localhost:8080';
  const ctx = await request.newContext({ baseURL });
  try {
    const { authUrl } = (await (await ctx.get('/config.json')).json()) as { authUrl: string };
    const login = await ctx.post(`${authUrl}/api/v1/login`, { data: { username: 'admin', password: 'paygate-demo' } });
    const { accessToken } = (await login.json()) as { accessToken?: string };
    if (!accessToken) throw new Error(`global setup: the demo admin's sign-in answered ${login.status()} without a token`);
    const res = await ctx.put(`${authUrl}/api/v1/sensitive-actions/step-up`, {
      headers: { Authorization: `Bearer ${accessToken}` },
      data: { actions: [], scope: 'none' },
    });
    if (!res.ok() && res.status() !== 404) throw new Error(`global setup: turning step-up off answered ${res.status()}: ${await res.text()}`);
  } finally {
    await ctx.dispose();
  }
}
