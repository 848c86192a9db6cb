import { defineConfig } from '@playwright/test';

// End-to-end tests of the console against a running stack (see console.spec.ts).
// Playwright drives the system's Chromium; it never downloads a browser.
export default defineConfig({
  testDir: '.',
  // Step-up confirmation off for every spec but approvals.spec.ts (issue 28).
  globalSetup: './global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: '../test-results',
  use: {
    baseURL: process.env.PAYGATE_E2E_URL ?? 'http://localhost:8080',
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 900 },
    // An action or a navigation that cannot happen fails with what it waited for, instead of
    // waiting out the whole test's timeout (which leaves only a closed page to report).
    actionTimeout: 20_000,
    navigationTimeout: 30_000,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.PAYGATE_E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    },
  },
});
