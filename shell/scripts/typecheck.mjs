// npm run typecheck: type-checks each console program on its own (programs.mjs lists them: the
// SDK, the host with the devkit, each remote, e2e and the root's Vitest files), so a remote's check
// holds its own files, the SDK's, the devkit's and gen/ts, and never the host's. Each program runs
// `tsc -p <dir> --noEmit --listFiles`; the listed files are held to the program's rules (a remote's
// program may hold no file of shell/src or of another remote). Incremental: the build info goes to
// node_modules/.cache/tsc, so a second run re-checks only what changed.
//
// Environment: PAYGATE_TYPECHECK_JOBS (programs checked at once; default 2, or 1 on one core).
// Arguments: program names (e.g. remotes/files) to check only those.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { consolePrograms, repoDir, violations } from './programs.mjs';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const cacheDir = path.join(repoDir, 'node_modules', '.cache', 'tsc');
mkdirSync(cacheDir, { recursive: true });
const jobs = Math.max(1, Number(process.env.PAYGATE_TYPECHECK_JOBS) || Math.min(2, os.availableParallelism()));
const only = process.argv.slice(2).map((a) => a.replace(/\/+$/, ''));
const programs = consolePrograms().filter((p) => only.length === 0 || only.includes(p.name));
if (only.length && programs.length !== only.length) {
  console.error(`typecheck: no program named ${only.filter((o) => !programs.some((p) => p.name === o)).join(', ')}`);
  process.exit(2);
}

function check(program) {
  const start = Date.now();
  const buildInfo = path.join(cacheDir, `${program.name === '.' ? 'root' : program.name.replace(/\//g, '_')}.tsbuildinfo`);
  const args = [tsc, '-p', program.tsconfig, '--noEmit', '--listFiles', '--pretty', 'false', '--incremental', '--tsBuildInfoFile', buildInfo];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: repoDir, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => {
      const lines = out.split('\n').filter(Boolean);
      // --listFiles prints absolute paths; everything else is a diagnostic.
      const files = lines.filter((l) => path.isAbsolute(l) && !/\(\d+,\d+\): /.test(l));
      const diagnostics = lines.filter((l) => !files.includes(l));
      const bad = violations(program, files);
      resolve({ program, code, files, diagnostics, bad, seconds: (Date.now() - start) / 1000 });
    });
  });
}

const queue = [...programs];
const results = [];
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    for (let p = queue.shift(); p; p = queue.shift()) {
      const r = await check(p);
      results.push(r);
      const ok = r.code === 0 && r.bad.length === 0;
      console.log(`typecheck: ${p.name === '.' ? '(root)' : p.name}: ${ok ? 'ok' : 'FAILED'} (${r.files.length} files, ${r.seconds.toFixed(1)} s)`);
      for (const d of r.diagnostics) console.log(`  ${d}`);
      for (const b of r.bad) console.log(`  ${b.file}: this program may not hold ${b.why}`);
    }
  }),
);
const failed = results.filter((r) => r.code !== 0 || r.bad.length > 0);
if (failed.length) {
  console.error(`typecheck: ${failed.length} of ${results.length} programs failed`);
  process.exit(1);
}
