import { EXPOSED_MODULES } from '@paygate/sdk';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const remoteDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('the files remote exposes what the SDK contract lists', () => {
  it('names every ExposedModules path of files under exposes in webpack.config.js, each an existing file', () => {
    // The devkit adds ./routes; the remote's config adds the modules it exposes to other remotes.
    const config = readFileSync(path.join(remoteDir, 'webpack.config.js'), 'utf8');
    const block = /exposes:\s*\{([^}]*)\}/.exec(config)?.[1] ?? '';
    const exposes = Object.fromEntries([...block.matchAll(/'(\.\/[^']+)':\s*'([^']+)'/g)].map((m) => [m[1], m[2]]));
    expect(Object.keys(exposes).sort()).toEqual(Object.keys(EXPOSED_MODULES.files).sort());
    for (const file of Object.values(exposes)) expect(existsSync(path.join(remoteDir, file as string))).toBe(true);
  });
});
