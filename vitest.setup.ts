import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { session, setConfig, toaster } from '@paygate/sdk';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { server, TEST_CONFIG } from '@paygate/devkit/testing/msw';

// findBy*/waitFor give up after 1 s by default; a loaded 2-core CI machine rendering Chakra dialogs
// can take longer than that, so wait up to 5 s (a passing wait still returns as soon as it passes).
configure({ asyncUtilTimeout: 5_000 });

// jsdom lacks a few browser APIs Chakra's components use.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => {},
      removeListener: () => {},
      addEventListener: () => {},
      removeEventListener: () => {},
      dispatchEvent: () => false,
    }) as MediaQueryList;
}
class NoopObserver {
  observe() {}
  unobserve() {}
  disconnect() {}
  takeRecords() {
    return [];
  }
}
globalThis.ResizeObserver ??= NoopObserver as unknown as typeof ResizeObserver;
globalThis.IntersectionObserver ??= NoopObserver as unknown as typeof IntersectionObserver;
window.scrollTo = () => {};

beforeAll(() => {
  setConfig(TEST_CONFIG);
  server.listen({ onUnhandledRequest: 'error' });
});
afterEach(() => {
  cleanup();
  server.resetHandlers();
  toaster.remove();
  session.clear();
  session.takeRedirect();
  localStorage.clear();
});
afterAll(() => server.close());
