// The console's TypeScript programs, one per workspace (each has its own tsconfig.json extending
// tsconfig.base.json), and the files each may not hold. A remote's program reaches the SDK, the
// devkit and gen/ts, never the host's sources: the devkit's `#host` import resolves, for
// TypeScript, to the contract in shell/devkit/src/host/types.d.ts, and only bundles and tests
// reach the host's embed surface. `npm run typecheck` (typecheck.mjs) checks every program and
// these rules on the files tsc lists; shell/devkit/src/programs.test.ts proves the rules hold and
// that a planted import of the host breaks them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const rel = (file) => path.relative(repoDir, file).split(path.sep).join('/');

/** The remotes: every folder under remotes/ with a package.json. */
export function remoteNames() {
  return readdirSync(path.join(repoDir, 'remotes'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .filter((e) => {
      try {
        readFileSync(path.join(repoDir, 'remotes', e.name, 'package.json'));
        return true;
      } catch {
        return false;
      }
    })
    .map((e) => e.name)
    .sort();
}

/**
 * consolePrograms lists the programs `npm run typecheck` checks, each with the folders (relative
 * to the repository, with a trailing slash) none of its files may lie in, and why.
 */
export function consolePrograms() {
  const remotes = remoteNames();
  const HOST = { prefix: 'shell/src/', why: "the host's sources (remotes reach the host only through @paygate/sdk at run time and @paygate/devkit to build, run standalone and test)" };
  const REMOTES = (except) =>
    remotes.filter((r) => r !== except).map((r) => ({ prefix: `remotes/${r}/`, why: `the ${r} remote (remotes and the host never import a remote)` }));
  return [
    { name: 'shell/sdk', forbidden: [HOST, ...REMOTES()] },
    // The host's program; it holds the devkit too, whose #host bridge (host/shell.ts) is checked
    // against the contract there.
    { name: 'shell', forbidden: REMOTES() },
    ...remotes.map((r) => ({ name: `remotes/${r}`, forbidden: [HOST, ...REMOTES(r)] })),
    { name: 'e2e', forbidden: [HOST, ...REMOTES()] },
    // The root's own files: vitest.config.ts and vitest.setup.ts.
    { name: '.', forbidden: [HOST, ...REMOTES()] },
  ].map((p) => ({ ...p, tsconfig: path.join(repoDir, p.name, 'tsconfig.json') }));
}

/** violations returns, for the program's files (absolute paths), those it may not hold, with why. */
export function violations(program, files) {
  const out = [];
  for (const file of files) {
    if (file.includes('/node_modules/')) continue;
    const r = rel(file);
    const rule = program.forbidden.find((f) => r.startsWith(f.prefix));
    if (rule) out.push({ file: r, why: rule.why });
  }
  return out;
}

/**
 * programFiles returns the files of the program a tsconfig.json describes, as `tsc --listFilesOnly`
 * lists them, without type checking. `planted` adds files that exist only in memory (path →
 * text), as root files, to prove a rule fails; `cache` (a Map) shares parsed files between calls.
 */
export function programFiles(tsconfig, { planted = {}, cache = new Map() } = {}) {
  const parsed = ts.getParsedCommandLineOfConfigFile(tsconfig, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } });
  if (!parsed) throw new Error(`cannot read ${tsconfig}`);
  if (parsed.errors.length) throw new Error(parsed.errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')).join('\n'));
  const host = ts.createCompilerHost(parsed.options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (f) => f in planted || fileExists.call(host, f);
  host.readFile = (f) => (f in planted ? planted[f] : readFile.call(host, f));
  host.getSourceFile = (f, lang, ...rest) => {
    if (f in planted) return ts.createSourceFile(f, planted[f], lang);
    let sf = cache.get(f);
    if (!sf) {
      sf = getSourceFile.call(host, f, lang, ...rest);
      if (sf) cache.set(f, sf);
    }
    return sf;
  };
  const program = ts.createProgram({ rootNames: [...parsed.fileNames, ...Object.keys(planted)], options: parsed.options, host });
  return program.getSourceFiles().map((sf) => path.resolve(sf.fileName));
}
