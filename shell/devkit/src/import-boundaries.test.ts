import { ESLint } from 'eslint';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

// The import boundaries of eslint.config.mjs, run through ESLint itself on
// source text placed (by its file path) inside the host, the SDK and a remote.
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ cwd: repo, overrideConfigFile: path.join(repo, 'eslint.config.mjs') });
});

/** restricted lints `import { x } from '<spec>'` as the file `file` and returns the boundary messages. */
async function restricted(file: string, spec: string): Promise<string[]> {
  const code = `import { x } from '${spec}';\n\nexport const y = x;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(repo, file) });
  if (!result) throw new Error(`ESLint returned no result for ${file}`);
  // A file the config ignores would pass silently; make sure it really was linted.
  expect(result.messages.filter((m) => m.fatal)).toEqual([]);
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

const PAGE = 'remotes/transactions/src/features/callbacks/components/callbacks-page.tsx';
const API = 'remotes/transactions/src/features/callbacks/api/get-callbacks.ts';
const FEATURE_ROOT = 'remotes/transactions/src/features/callbacks/index-like.ts';
const REMOTE_ROOT = 'remotes/transactions/src/routes.ts';
const SHARED = 'remotes/transactions/src/components/url-endpoints.tsx';

describe('import boundaries (eslint.config.mjs)', () => {
  it.each([
    // A remote never imports the host …
    [PAGE, '@paygate/shell/embed', 'never imports the host'],
    [REMOTE_ROOT, '@paygate/shell', 'never imports the host'],
    [SHARED, 'shell/src/app/route-table', 'never imports the host'],
    [PAGE, '../../../../../../shell/src/app/routes', 'climbs out of the remote'],
    [REMOTE_ROOT, '../../../shell/src/console', 'climbs out of the remote'],
    // … nor another remote …
    [PAGE, '@paygate/remote-providers', 'do not import each other'],
    [SHARED, 'remotes/providers/src/routes', 'do not import each other'],
    [SHARED, '../../../providers/src/routes', 'climbs out of the remote'],
    [API, '../../../../../providers/src/features/providers/api/types', 'climbs out of the remote'],
    // … and a feature never imports another feature.
    [PAGE, '../../transactions/api/types', 'across features'],
    [PAGE, '../../../features/validation-endpoints/api/types', 'across features'],
    [API, '../../simulate/utils/form', 'across features'],
    [FEATURE_ROOT, '../transactions/utils/status', 'across features'],
    [FEATURE_ROOT, '../../features/simulate/utils/form', 'across features'],
    // The devkit reaches the host only through its #host bridge.
    ['shell/devkit/src/mount-console.ts', '@paygate/shell/embed', "through `import { host } from '#host'`"],
    ['shell/devkit/src/testing/render-app.tsx', '../../../src/app/routes', "through `import { host } from '#host'`"],
  ])('%s may not import %s', async (file, spec, reason) => {
    const messages = await restricted(file, spec);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(reason);
  });

  it.each([
    [PAGE, '@paygate/sdk'],
    [PAGE, '@paygate/devkit/testing'],
    [PAGE, '@paygate/gen/gateway/v1/callbacks_pb'],
    [PAGE, './callbacks-table'],
    [PAGE, '../api/get-callbacks'],
    [PAGE, '../../../components/url-endpoints'],
    [PAGE, '../../../api/get-collabs'],
    [PAGE, '../../../testing/fixtures'],
    [PAGE, '../../../utils/url'],
    [PAGE, '../../../routes'],
    [API, '../../../api/get-collabs'],
    [FEATURE_ROOT, './api/get-callbacks'],
    [FEATURE_ROOT, '../../components/confirm-dialog'],
    [SHARED, '../api/get-collabs'],
    [SHARED, '../utils/url'],
    [REMOTE_ROOT, './features/callbacks/components/callbacks-page'],
    ['remotes/transactions/webpack.config.js', '@paygate/devkit/webpack'],
    ['shell/devkit/src/host/shell.ts', '@paygate/shell/embed'],
    ['shell/devkit/src/mount-console.ts', '#host'],
    ['shell/devkit/src/testing/render-app.tsx', '#host'],
  ])('%s may import %s', async (file, spec) => {
    expect(await restricted(file, spec)).toEqual([]);
  });

  it('keeps remotes out of the host and the SDK, and the host and the devkit out of the SDK', async () => {
    expect(await restricted('shell/src/app/routes.tsx', '@paygate/remote-transactions')).toHaveLength(1);
    expect(await restricted('shell/src/app/routes.tsx', 'remotes/transactions/src/routes')).toHaveLength(1);
    expect(await restricted('shell/sdk/src/remote.ts', '@paygate/shell/embed')).toHaveLength(1);
    expect(await restricted('shell/sdk/src/remote.ts', '@paygate/devkit/testing')).toHaveLength(1);
    expect(await restricted('shell/sdk/src/remote.ts', '../../src/app/route-table')).toHaveLength(1);
    // The SDK's own tests use the devkit's MSW server.
    expect(await restricted('shell/sdk/src/session.test.ts', '@paygate/devkit/testing/msw')).toEqual([]);
  });
});
