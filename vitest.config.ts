import path from 'node:path';
import { defineConfig } from 'vitest/config';

// One Vitest run over every workspace (shell, shell/sdk, remotes/*).
export default defineConfig({
  resolve: {
    alias: { '@paygate/gen': path.resolve(__dirname, 'gen/ts/paygate') },
  },
  esbuild: { jsx: 'automatic' },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./vitest.setup.ts'],
    include: ['shell/**/*.test.{ts,tsx}', 'remotes/*/src/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**', '**/dist/**'],
    restoreMocks: true,
    testTimeout: 30_000,
  },
});
