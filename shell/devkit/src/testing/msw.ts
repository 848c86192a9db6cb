import type { RuntimeConfig } from '@paygate/sdk';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

/** TEST_CONFIG is the runtime config every test runs with. */
export const TEST_CONFIG: RuntimeConfig = {
  authUrl: 'http://auth.test',
  gatewayUrl: 'http://gateway.test',
  callbacksUrl: 'http://callbacks.test',
  aggregatorUrl: 'http://aggregator.test',
  remotes: {
    transactions: '/remotes/transactions/remoteEntry.js',
    providers: '/remotes/providers/remoteEntry.js',
    files: '/remotes/files/remoteEntry.js',
    security: '/remotes/security/remoteEntry.js',
  },
};

/** AUTH and GATEWAY prefix the handlers' URLs. */
export const AUTH = TEST_CONFIG.authUrl;
export const GATEWAY = TEST_CONFIG.gatewayUrl;

/** COMMON_TEST_PASSWORDS stand for the server's list of common passwords in tests. */
export const COMMON_TEST_PASSWORDS = ['password1234', 'welcome123456', 'iloveyou1234'];

/**
 * passwordPolicyHandlers answer the password policy as the auth service does
 * (12 to 128 characters; the common-password check against
 * COMMON_TEST_PASSWORDS): every form that sets a password asks them.
 */
export const passwordPolicyHandlers = [
  http.get(`${AUTH}/api/v1/password-policy`, () => HttpResponse.json({ minLength: 12, maxLength: 128 })),
  http.post(`${AUTH}/api/v1/password-policy/check`, async ({ request }) => {
    const { password = '' } = (await request.json()) as { password?: string };
    const common = COMMON_TEST_PASSWORDS.includes(password.toLowerCase());
    return HttpResponse.json({
      problems: common ? [{ rule: 'PASSWORD_RULE_COMMON', message: 'password is too common; choose one that is harder to guess.' }] : [],
    });
  }),
];

/**
 * pendingApprovalsHandler answers the sidebar's count of pending approvals
 * (issue 28) with none: the sidebar asks on every screen of a signed-in user.
 * A test of the badge answers its own count with server.use.
 */
export const pendingApprovalsHandler = http.get(`${AUTH}/api/v1/approvals/pending-count`, () => HttpResponse.json({ count: 0 }));

/**
 * watchlistHandlers answer the watchlists (issue 29) with none and no
 * alerts: the Dashboard and the Transactions page show the strip, and the
 * sidebar counts the alerts, on every screen. A test of them answers its own
 * with server.use.
 */
export const watchlistHandlers = [
  http.get(`${GATEWAY}/api/v1/watchlists`, () => HttpResponse.json({ watchlists: [] })),
  http.get(`${GATEWAY}/api/v1/watchlists/values`, () => HttpResponse.json({ values: [] })),
  http.get(`${GATEWAY}/api/v1/alerts`, () => HttpResponse.json({ alerts: [], nextPageToken: '', unacknowledgedCount: '0' })),
];

/**
 * viewHandlers answer the saved views (issue 29) with none: the Transactions,
 * Frauds and Files lists show the Views bar. A test of views answers its own
 * with server.use.
 */
export const viewHandlers = [http.get(`${GATEWAY}/api/v1/views`, () => HttpResponse.json({ views: [] }))];

/**
 * server answers the tests' HTTP calls; an unhandled request fails the test.
 * The password policy, the count of pending approvals, the watchlists and
 * the saved views are answered by default (resetHandlers keeps them).
 */
export const server = setupServer(...passwordPolicyHandlers, pendingApprovalsHandler, ...watchlistHandlers, ...viewHandlers);
