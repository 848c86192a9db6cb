// A light lint: the recommended JavaScript and TypeScript rules plus the
// rules of hooks. Type checking is `npm run typecheck`.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Import boundaries of the console (ARCHITECTURE.md: remotes → sdk → gen).
// no-restricted-imports matches the import's text, not the resolved file, so a
// relative import is judged by how far it climbs: a file N directories below a
// remote's src/ leaves src/ with N `../`, and a file D directories below
// src/features/<feature>/ reaches src/features/ with D `../`. One block per
// depth, each with every pattern that applies there (a later block's options
// replace an earlier one's for the same rule).
const TS = '*.{ts,tsx}';
const climb = (n) => `(\\.\\./){${n}}`;
const HOST = {
  group: ['@paygate/shell', '@paygate/shell/*', 'shell/*'],
  message: 'A remote never imports the host: use @paygate/sdk at run time and @paygate/devkit to build, run standalone and test.',
};
const OTHER_REMOTES = {
  group: ['@paygate/remote-*', 'remotes/*'],
  message: 'Remotes do not import each other: share it through @paygate/sdk.',
};
const leavesSrc = (n) => ({
  regex: `^${climb(n)}`,
  message: "This climbs out of the remote's src/ (into the host or another remote): use @paygate/sdk or @paygate/devkit.",
});
const crossesFeatures = (d) => ({
  regex: `^${climb(d)}(?!\\.\\./)|^${climb(d + 1)}features(/|$)`,
  message: "No imports across features: move what both need to this remote's src/components (or src/api, src/utils) or to @paygate/sdk.",
});
const restrict = (files, patterns) => ({ files, rules: { 'no-restricted-imports': ['error', { patterns }] } });
const MAX_DEPTH = 8;
const depths = (from) => Array.from({ length: MAX_DEPTH - from + 1 }, (_, i) => from + i);
const importBoundaries = [
  // The host and the SDK never import a remote; the SDK never imports the host or the devkit.
  restrict(['shell/src/**/' + TS, 'shell/devkit/**/' + TS], [OTHER_REMOTES]),
  // The devkit reaches the host through `#host` only: its bridge (src/host/shell.ts) is the one
  // file that imports the host, so the programs of remotes, which read `#host`'s types
  // (src/host/types.d.ts), hold no file of the host (npm run typecheck checks this too).
  {
    ...restrict(
      ['shell/devkit/**/' + TS],
      [
        OTHER_REMOTES,
        {
          group: ['@paygate/shell', '@paygate/shell/*'],
          message: "The devkit reaches the host through `import { host } from '#host'` (only src/host/shell.ts imports @paygate/shell/embed).",
        },
        { regex: '^(\\.\\./)+src/', message: "The devkit reaches the host through `import { host } from '#host'`." },
      ],
    ),
    ignores: ['shell/devkit/src/host/shell.ts'],
  },
  restrict(
    ['shell/sdk/src/**/' + TS],
    [
      OTHER_REMOTES,
      { regex: '^(\\.\\./)+(remotes|src|devkit)/', message: 'The SDK depends on nothing of the console but itself (and gen/ts).' },
      { group: ['@paygate/shell', '@paygate/shell/*', '@paygate/devkit', '@paygate/devkit/*'], message: 'The SDK depends on nothing of the console but itself (and gen/ts).' },
    ],
  ),
  {
    // The SDK's tests may use the devkit's MSW server and tokens.
    files: ['shell/sdk/src/**/*.test.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [OTHER_REMOTES, { group: ['@paygate/shell', '@paygate/shell/*'], message: 'The SDK never imports the host.' }] },
      ],
    },
  },
  // A remote's files, by depth below src/.
  ...depths(1).map((n) => restrict([`remotes/*/src/${'*/'.repeat(n - 1)}${TS}`], [HOST, OTHER_REMOTES, leavesSrc(n)])),
  // A feature's files, by depth below src/features/<feature>/ (three more levels than src/).
  ...depths(1)
    .filter((d) => d + 2 <= MAX_DEPTH)
    .map((d) =>
      restrict([`remotes/*/src/features/*/${'*/'.repeat(d - 1)}${TS}`], [HOST, OTHER_REMOTES, leavesSrc(d + 2), crossesFeatures(d)]),
    ),
];

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', '.data/**', 'gen/**', 'third_party/**', 'bin/**', 'services/**', 'deploy/**', 'test-results/**', 'playwright-report/**', 'shell/public/docs/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...importBoundaries,
  {
    files: ['**/*.{js,mjs,cjs}', 'e2e/**', '*.config.ts'],
    languageOptions: { globals: { ...globals.node } },
  },
);
