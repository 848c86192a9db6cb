// A light lint: the recommended JavaScript and TypeScript rules plus the
// rules of hooks. Type checking is `npm run typecheck`.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/dist/**', '**/node_modules/**', 'gen/**', 'third_party/**', 'bin/**', 'services/**', 'deploy/**', 'test-results/**', 'playwright-report/**', 'shell/public/docs/**'],
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
  {
    files: ['**/*.{js,mjs,cjs}', 'e2e/**', '*.config.ts'],
    languageOptions: { globals: { ...globals.node } },
  },
);
