import type { RuntimeConfig } from '@paygate/sdk';
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

/** server answers the tests' HTTP calls; an unhandled request fails the test. */
export const server = setupServer();
