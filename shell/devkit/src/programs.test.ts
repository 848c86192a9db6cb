import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { consolePrograms, programFiles, remoteNames, repoDir, violations } from '../../scripts/programs.mjs';

// Each remote type-checks on its own: its program (remotes/<name>/tsconfig.json, as tsc
// --listFilesOnly lists it) reaches the SDK and the devkit but no file of the host. The devkit's
// `#host` gives TypeScript the contract (host/types.d.ts), never the bridge into the host.
const cache = new Map<string, unknown>();
const rel = (files: string[]) => files.map((f) => path.relative(repoDir, f).split(path.sep).join('/'));
const program = (name: string) => {
  const p = consolePrograms().find((c) => c.name === name);
  if (!p) throw new Error(`no program ${name}`);
  return p;
};

describe('the console programs', () => {
  it('has a program for every remote', () => {
    expect(remoteNames()).toEqual(['files', 'providers', 'security', 'transactions']);
    for (const r of remoteNames()) expect(program(`remotes/${r}`).forbidden.map((f) => f.prefix)).toContain('shell/src/');
  });

  it.each(remoteNames())("the %s remote's program holds no file of the host or of another remote", (remote) => {
    const p = program(`remotes/${remote}`);
    const files = programFiles(p.tsconfig, { cache });
    expect(violations(p, files)).toEqual([]);
    const names = rel(files);
    // It does reach the devkit and the SDK, and sees the host through the contract only.
    expect(names).toContain('shell/devkit/src/mount-console.ts');
    expect(names).toContain('shell/devkit/src/host/types.d.ts');
    expect(names).toContain('shell/sdk/src/index.ts');
    expect(names).not.toContain('shell/devkit/src/host/shell.ts');
    expect(names.filter((n) => n.startsWith(`remotes/${remote}/src/`)).length).toBeGreaterThan(5);
  }, 120_000);

  it('fails a remote whose program imports the host, even through another file', () => {
    const p = program('remotes/transactions');
    const planted = path.join(repoDir, 'remotes/transactions/src/planted.ts');
    const files = programFiles(p.tsconfig, { cache, planted: { [planted]: "export { mountConsole } from '@paygate/shell/embed';\n" } });
    const bad = violations(p, files);
    expect(bad.map((b) => b.file)).toContain('shell/src/embed.ts');
    expect(bad[0]?.why).toContain("the host's sources");
  }, 120_000);

  it("fails a remote's program that holds another remote's file", () => {
    const p = program('remotes/files');
    const bad = violations(p, [path.join(repoDir, 'remotes/providers/src/routes.ts'), path.join(repoDir, 'remotes/files/src/routes.ts')]);
    expect(bad).toEqual([{ file: 'remotes/providers/src/routes.ts', why: expect.stringContaining('the providers remote') }]);
  });
});
