// The console's cross-release test (`make console-compat`, a step of `make test`; the rule it proves
// is in docs/releases.md and shell/README.md, "Shared libraries"). The host and the remotes ship on
// their own, so:
//
//   1. every remote of this checkout runs on the host built from the previous release, or, when it
//      imports a name the older host's kept lists (shell/devkit/shared/) do not have yet, is refused
//      by Module Federation's version check ("Unsatisfied version …": that remote waits for a host
//      release), and never fails on a missing name; and
//   2. every remote built from the previous release runs on this checkout's host (the lists only
//      grow, so a refusal fails here).
//
// For each pair it serves the host's build at / and the remote's at /remotes/<name>/ (the layout of
// production, shell/README.md), opens the remote's first screen signed in as an admin (a token in
// localStorage; every service call answers 503, so a screen shows its error state, which is a
// screen too) in headless Chromium, and fails unless:
//   - the screen rendered (its page title set), with no "This section is unavailable" error screen;
//   - no page error, and no console error or warning but the stubbed services' 503s (a Module
//     Federation "Unsatisfied version" or "No satisfying version" warning fails it);
//   - the shared singletons the remote received are the host's, and hold every name the remote's
//     sources import from @chakra-ui/react, react-router, @tanstack/react-query and @paygate/sdk
//     (read from the share scope the remote's container was initialised with).
// A planted case proves the version check refuses and this test sees it: this checkout's
// transactions remote, made to require a facade revision no host has, must be refused.
//
// The base (the previous release) is PAYGATE_COMPAT_BASE when set (any commit, tag or rev), else the
// newest release tag v* before HEAD, else, until the first release is tagged,
// HEAD~PAYGATE_CONSOLE_COMPAT_DEPTH (default 5, along the first parent). A base outside this clone
// (a shallow clone) skips the test with a message saying so (exit 0) unless
// PAYGATE_CONSOLE_COMPAT_REQUIRED=1, which fails it.
//
// The base is built once per commit (a `git worktree add` in a temporary folder, this checkout's
// node_modules linked in when the lockfiles match, `npm ci` there when they do not; then `npm run
// build`), kept in .data/console-compat/<commit>/ and reused (only the newest base is kept). This
// checkout's side is its build (shell/dist, remotes/*/dist): run `npm run build` first (make test
// does); a missing build is made.
//
// Environment: PAYGATE_COMPAT_BASE, PAYGATE_CONSOLE_COMPAT_DEPTH, PAYGATE_CONSOLE_COMPAT_REQUIRED,
// PAYGATE_E2E_CHROMIUM (default /usr/bin/chromium).
/* global window, document, location -- captureShareScope, sharedReport and a wait run in the page */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { FACADES, importedNames, sourceFiles } from '../devkit/shared.js';
import { repoDir } from './programs.mjs';

const DEPTH = Number(process.env.PAYGATE_CONSOLE_COMPAT_DEPTH ?? 5);
const REQUIRED = process.env.PAYGATE_CONSOLE_COMPAT_REQUIRED === '1';
const CHROMIUM = process.env.PAYGATE_E2E_CHROMIUM ?? '/usr/bin/chromium';
const SHARED = [...Object.keys(FACADES), '@paygate/sdk'];
const API = 'http://api.invalid';
/** The screen each remote is opened at, as bench/console does: the first of its sidebar entries. */
const SCREENS = { transactions: '/transactions', providers: '/providers', files: '/files', security: '/account-security' };
const start = Date.now();

const log = (msg) => console.log(`console-compat: ${msg}`);
function fail(msg) {
  console.error(`console-compat: FAILED: ${msg}`);
  process.exit(1);
}
const git = (...args) => execFileSync('git', args, { cwd: repoDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const tryGit = (...args) => {
  try {
    return git(...args);
  } catch {
    return null;
  }
};

// ------------------------------------------------------------------ the base

function baseRev() {
  if (process.env.PAYGATE_COMPAT_BASE) {
    log(`base: PAYGATE_COMPAT_BASE=${process.env.PAYGATE_COMPAT_BASE}`);
    return process.env.PAYGATE_COMPAT_BASE;
  }
  const onHead = (tryGit('tag', '--points-at', 'HEAD', '-l', 'v*') ?? '').split('\n').filter(Boolean);
  const tag = tryGit('describe', '--tags', '--abbrev=0', '--match', 'v*', ...onHead.flatMap((t) => ['--exclude', t]), 'HEAD');
  if (tag) {
    log(`base: ${tag}, the newest release tag before HEAD`);
    return tag;
  }
  log(`base: HEAD~${DEPTH} (no release tag v* before HEAD yet; PAYGATE_CONSOLE_COMPAT_DEPTH=${DEPTH})`);
  return `HEAD~${DEPTH}`;
}

function resolveBase(rev) {
  const sha = tryGit('rev-parse', '-q', '--verify', `${rev}^{commit}`);
  if (!sha) {
    const shallow = tryGit('rev-parse', '--is-shallow-repository') === 'true';
    const why = shallow
      ? `the base ${rev} is not in this clone, which is shallow (${git('rev-list', '--count', 'HEAD')} commits): fetch the history (git fetch --unshallow --tags) or set PAYGATE_COMPAT_BASE to a commit the clone has`
      : `the base ${rev} is not a commit of this repository: set PAYGATE_COMPAT_BASE to a commit, tag or rev`;
    if (REQUIRED || !shallow) fail(why);
    console.log(`\nconsole-compat: SKIPPED — ${why}. The host and remotes of this commit were NOT checked against the previous release.\n`);
    process.exit(0);
  }
  if (sha === git('rev-parse', 'HEAD')) fail(`the base ${rev} is HEAD itself: there is no previous release to test against`);
  return sha;
}

/** names returns what a remote's sources (at dir) import from each shared library. */
function names(remoteDir) {
  const found = importedNames(SHARED, sourceFiles(path.join(remoteDir, 'src')), { wholeAsNull: true });
  return Object.fromEntries([...found].filter(([, set]) => set).map(([lib, set]) => [lib, [...set].sort()]));
}

const remotesOf = (root) =>
  readdirSync(path.join(root, 'remotes'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(root, 'remotes', e.name, 'package.json')))
    .map((e) => e.name)
    .sort();

/**
 * linkModules gives the worktree at dir a node_modules of links into this checkout's, but for the
 * workspace packages (@paygate/*), which link to the worktree's own folders.
 */
function linkModules(dir) {
  const mine = path.join(repoDir, 'node_modules');
  const theirs = path.join(dir, 'node_modules');
  mkdirSync(path.join(theirs, '@paygate'), { recursive: true });
  for (const e of readdirSync(mine)) {
    if (e === '@paygate' || e === '.cache' || e === '.package-lock.json') continue;
    symlinkSync(path.join(mine, e), path.join(theirs, e));
  }
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  for (const pattern of pkg.workspaces ?? []) {
    const dirs = pattern.endsWith('/*')
      ? readdirSync(path.join(dir, pattern.slice(0, -2)), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => path.join(dir, pattern.slice(0, -2), e.name))
      : [path.join(dir, pattern)];
    for (const d of dirs) {
      const file = path.join(d, 'package.json');
      if (!existsSync(file)) continue;
      const name = JSON.parse(readFileSync(file, 'utf8')).name;
      if (name?.startsWith('@paygate/')) symlinkSync(d, path.join(theirs, name));
    }
  }
}

function run(cmd, args, cwd, what) {
  const r = spawnSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) {
    console.error(`${r.stdout ?? ''}${r.stderr ?? ''}`.split('\n').slice(-60).join('\n'));
    fail(`${what} failed (exit ${r.status})`);
  }
}

/** buildBase returns the folder holding the base's builds (shell/, remotes/<name>/) and names.json. */
function buildBase(sha) {
  const out = path.join(repoDir, '.data', 'console-compat', sha);
  const stamp = `${sha} ${process.version}`;
  if (existsSync(path.join(out, '.stamp')) && readFileSync(path.join(out, '.stamp'), 'utf8') === stamp) {
    log(`the base's console is already built (${path.relative(repoDir, out)})`);
    return out;
  }
  const work = mkdtempSync(path.join(os.tmpdir(), 'paygate-console-compat.'));
  const tree = path.join(work, 'base');
  try {
    tryGit('worktree', 'prune'); // a run that was killed may have left its worktree registered
    git('worktree', 'add', '--detach', tree, sha);
    const sameLock = tryGit('diff', '--quiet', sha, 'HEAD', '--', 'package-lock.json') !== null;
    if (sameLock) {
      log(`building the base's console (${sha.slice(0, 12)}) with this checkout's node_modules (the lockfiles match)`);
      linkModules(tree);
    } else {
      log(`the base's package-lock.json differs from this checkout's: npm ci in its worktree`);
      run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], tree, 'npm ci of the base');
    }
    const t0 = Date.now();
    run('npm', ['run', 'build'], tree, `npm run build of the base ${sha.slice(0, 12)}`);
    log(`built the base's console in ${Math.round((Date.now() - t0) / 1000)} s`);
    rmSync(`${out}.tmp`, { recursive: true, force: true });
    cpSync(path.join(tree, 'shell', 'dist'), path.join(`${out}.tmp`, 'shell'), { recursive: true });
    const remoteNames = {};
    for (const r of remotesOf(tree)) {
      cpSync(path.join(tree, 'remotes', r, 'dist'), path.join(`${out}.tmp`, 'remotes', r), { recursive: true });
      remoteNames[r] = names(path.join(tree, 'remotes', r));
    }
    writeFileSync(path.join(`${out}.tmp`, 'names.json'), JSON.stringify(remoteNames, null, 2));
    writeFileSync(path.join(`${out}.tmp`, '.stamp'), stamp);
    rmSync(out, { recursive: true, force: true });
    cpSync(`${out}.tmp`, out, { recursive: true });
    rmSync(`${out}.tmp`, { recursive: true, force: true });
    // Only the newest base is kept.
    for (const e of readdirSync(path.dirname(out))) if (e !== sha) rmSync(path.join(path.dirname(out), e), { recursive: true, force: true });
    return out;
  } finally {
    tryGit('worktree', 'remove', '--force', tree);
    rmSync(work, { recursive: true, force: true });
    tryGit('worktree', 'prune');
  }
}

/** thisCheckout returns this checkout's builds, building them when missing. */
function thisCheckout() {
  const missing = !existsSync(path.join(repoDir, 'shell', 'dist', 'index.html')) || remotesOf(repoDir).some((r) => !existsSync(path.join(repoDir, 'remotes', r, 'dist', 'remoteEntry.js')));
  if (missing) {
    log('this checkout is not built: npm run build');
    run('npm', ['run', 'build'], repoDir, 'npm run build');
  }
  return {
    host: path.join(repoDir, 'shell', 'dist'),
    remotes: Object.fromEntries(remotesOf(repoDir).map((r) => [r, { dist: path.join(repoDir, 'remotes', r, 'dist'), names: names(path.join(repoDir, 'remotes', r)) }])),
  };
}

// ------------------------------------------------------------------ serving and checking

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' };

/**
 * serve serves hostDist at / and each remote's dist at /remotes/<name>/, a config.json whose services
 * are API (stubbed by the page's routes), and index.html for client-side routes. `patch` may rewrite
 * a remote's remoteEntry.js (the planted case).
 */
function serve(hostDist, remoteDists, patch) {
  const config = {
    authUrl: `${API}/auth`,
    gatewayUrl: `${API}/gateway`,
    callbacksUrl: `${API}/callbacks`,
    aggregatorUrl: `${API}/aggregator`,
    remotes: Object.fromEntries(Object.keys(remoteDists).map((r) => [r, `/remotes/${r}/remoteEntry.js`])),
  };
  const server = createServer((req, res) => {
    const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (urlPath === '/config.json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }).end(JSON.stringify(config));
      return;
    }
    const m = /^\/remotes\/([a-z]+)(\/.*)$/.exec(urlPath);
    const [root, rel] = m ? [remoteDists[m[1]], m[2]] : [hostDist, urlPath];
    let file = root ? path.join(root, path.normalize(rel)) : null;
    if (file && (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory())) file = null;
    if (!file && !m && path.extname(urlPath) === '') file = path.join(hostDist, 'index.html');
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
      return;
    }
    let body = readFileSync(file);
    if (m && rel === '/remoteEntry.js' && patch?.[m[1]]) body = Buffer.from(patch[m[1]](body.toString('utf8')));
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'Cache-Control': 'no-store' }).end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function b64url(value) {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The admin the console is signed in as: an unsigned token (the services are stubs) and its user. */
function admin() {
  const iat = Math.floor(Date.now() / 1000);
  // Every permission of the SDK's PERMISSIONS list (shell/sdk/src/access.ts).
  const list = /export const PERMISSIONS = \[([^\]]*)\]/.exec(readFileSync(path.join(repoDir, 'shell', 'sdk', 'src', 'access.ts'), 'utf8'));
  if (!list) fail('shell/sdk/src/access.ts has no PERMISSIONS list');
  const permissions = [...list[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
  const claims = { iss: 'paygate-auth', aud: 'paygate', iat, exp: iat + 3600, sub: '1', username: 'admin', roles: ['Admin'], permissions: [...new Set(permissions)], merchantIds: [], isTemporaryPassword: false };
  const user = { id: claims.sub, username: claims.username, roles: claims.roles, permissions: claims.permissions, merchantIds: [], isTemporaryPassword: false };
  return { token: `${b64url({ alg: 'EdDSA', typ: 'JWT' })}.${b64url(claims)}.signature`, user };
}

/** In the page: wrap each remote container so the share scope it is initialised with is kept. */
function captureShareScope(containers) {
  window.__paygateCompat = {};
  for (const name of containers) {
    let value;
    Object.defineProperty(window, name, {
      configurable: true,
      get: () => value,
      set: (container) => {
        value = container && {
          get: (module) => container.get(module),
          init: (scope, ...rest) => {
            window.__paygateCompat[name] = scope;
            return container.init(scope, ...rest);
          },
        };
      },
    });
  }
}

/** In the page: the loaded version of each shared library the remote received, and the names it lacks. */
async function sharedReport({ container, wanted }) {
  const scope = window.__paygateCompat[container];
  if (!scope) return { error: `the ${container} container was never initialised` };
  const out = {};
  for (const [lib, names] of Object.entries(wanted)) {
    const versions = scope[lib] ?? {};
    const version = Object.keys(versions).find((v) => versions[v].loaded);
    if (!version) {
      out[lib] = { error: 'not loaded' };
      continue;
    }
    const mod = (await versions[version].get())();
    out[lib] = { version, from: versions[version].from, missing: names.filter((n) => mod[n] === undefined) };
  }
  return out;
}

/** check opens a remote's screen on a served console and returns what is wrong (empty when fine). */
async function check(browser, base, remote, wanted) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = [];
  const { token, user } = admin();
  // The console asks auth who the stored token belongs to; every other call answers 503.
  await context.route(`${API}/**`, (route) =>
    route.request().url() === `${API}/auth/api/v1/validate-token`
      ? route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ user }) })
      : route.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"stubbed by console-compat"}' }),
  );
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error' && msg.type() !== 'warning') return;
    const where = msg.location()?.url ?? '';
    if (where.startsWith(API) || msg.text().includes('api.invalid') || (msg.text().startsWith('Failed to load resource') && msg.text().includes('503'))) return;
    problems.push(`console ${msg.type()}: ${msg.text().split('\n')[0]}`);
  });
  await page.addInitScript(({ token }) => {
    localStorage.setItem('accessToken', token);
    localStorage.setItem('refreshToken', 'refresh-admin');
    localStorage.setItem('skipPasskeySetup', new Date(Date.now() + 864e5).toISOString());
  }, { token });
  await page.addInitScript(captureShareScope, Object.keys(SCREENS).map((r) => `paygate_${r}`));
  try {
    await page.goto(`${base}${SCREENS[remote]}`);
    const unavailable = page.getByText('This section is unavailable right now.');
    // The screen is there once its page title is set (the shell's titled remote screen does it
    // after the remote's component rendered), or the remote's error screen shows.
    await page.waitForFunction(
      (screen) =>
        (location.pathname === screen && document.title.startsWith('Paygate - ') && document.title !== 'Paygate - Login') ||
        document.body.innerText.includes('This section is unavailable right now.'),
      SCREENS[remote],
      { timeout: 30_000 },
    );
    await page.waitForLoadState('networkidle', { timeout: 15_000 }).catch(() => {});
    if (await page.evaluate(() => location.pathname) !== SCREENS[remote]) problems.push(`the console left ${SCREENS[remote]} for ${await page.evaluate(() => location.pathname)}`);
    else if (await unavailable.isVisible()) {
      const detail = (await page.getByText(/Something went wrong in the/).first().innerText().catch(() => '')).replace(/\s+/g, ' ').trim();
      const unsatisfied = /Unsatisfied version \S+ from paygate_shell of shared singleton module \S+ \(required [^)]+\)/.exec(detail);
      if (unsatisfied) {
        // Refused by the version check: the remote needs a revision of a shared list the host
        // lacks. Its console errors say the same; nothing else may have gone wrong.
        await context.close();
        const rest = problems.filter((p) => !p.includes('Unsatisfied version'));
        return { problems: rest, refused: unsatisfied[0] };
      }
      problems.push(`the screen did not load: ${detail}`);
    }
    // What the remote got from the share scope, also when its screen failed (it says why).
    const report = await page.evaluate(sharedReport, { container: `paygate_${remote}`, wanted });
    if (report.error) problems.push(report.error);
    else {
      for (const [lib, r] of Object.entries(report)) {
        if (r.error) problems.push(`${lib}: ${r.error}`);
        else {
          if (r.from !== 'paygate_shell') problems.push(`${lib} ${r.version} came from ${r.from}, not from the host`);
          if (r.missing.length) problems.push(`the host's ${lib} (${r.version}) lacks ${r.missing.join(', ')}, which the ${remote} remote imports`);
        }
      }
    }
  } catch (err) {
    problems.push(`the screen did not render: ${err.message.split('\n')[0]}`);
  } finally {
    await context.close().catch(() => {});
  }
  return { problems, refused: null };
}

/**
 * pair opens each remote's screen on a console of `host` with those remotes. With `mayRefuse`, a
 * remote refused by the version check (it needs a newer revision of a shared list than the host
 * has: the host ships first) is reported but passes; otherwise a refusal fails.
 */
async function pair(browser, title, host, remotes, { patch, mayRefuse = false } = {}) {
  const server = await serve(host, Object.fromEntries(Object.entries(remotes).map(([r, v]) => [r, v.dist])), patch);
  const base = `http://127.0.0.1:${server.address().port}`;
  const results = {};
  try {
    for (const [remote, { names: wanted }] of Object.entries(remotes)) {
      if (!SCREENS[remote]) continue;
      results[remote] = await check(browser, base, remote, wanted);
      const r = results[remote];
      if (r.refused && !mayRefuse) r.problems.push(`refused: ${r.refused}`);
      const verdict = r.problems.length ? 'FAILED' : r.refused ? `refused by the version check (allowed here): ${r.refused}` : 'ok';
      log(`${title}: ${remote} ${SCREENS[remote]}: ${verdict}`);
      for (const p of r.problems) log(`    ${p}`);
    }
  } finally {
    server.close();
  }
  return results;
}

// ------------------------------------------------------------------ main

if (!existsSync(CHROMIUM)) fail(`${CHROMIUM} is missing (deploy/local/e2e.sh installs Debian's chromium; PAYGATE_E2E_CHROMIUM names another)`);
const sha = resolveBase(baseRev());
const short = sha.slice(0, 12);
const baseDir = buildBase(sha);
const baseRemoteNames = JSON.parse(readFileSync(path.join(baseDir, 'names.json'), 'utf8'));
const mine = thisCheckout();
const theirs = Object.fromEntries(Object.entries(baseRemoteNames).map(([r, n]) => [r, { dist: path.join(baseDir, 'remotes', r), names: n }]));

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
let failed = 0;
try {
  // A remote of this commit may need a name the older host's lists lack; it must then be refused
  // by the version check, never fail on a missing name.
  const a = await pair(browser, `this commit's remotes on the host of ${short}`, path.join(baseDir, 'shell'), mine.remotes, { mayRefuse: true });
  // An older remote must always run: the lists only grow.
  const b = await pair(browser, `the remotes of ${short} on this commit's host`, mine.host, theirs);
  failed = [...Object.values(a), ...Object.values(b)].filter((r) => r.problems.length).length;

  // The planted case: a remote requiring a Chakra UI facade revision no host has must be refused.
  const planted = await pair(browser, 'planted: the transactions remote requiring a facade revision no host has', mine.host, { transactions: mine.remotes.transactions }, {
    mayRefuse: true,
    patch: {
      transactions: (text) => {
        const re = /("@chakra-ui\/react",!1,\[1,)(\d+),(\d+)(,\d+\])/;
        if (!re.test(text)) fail("cannot plant: the transactions remoteEntry.js has no strict @chakra-ui/react requirement of the expected shape (webpack's runtime changed?)");
        return text.replace(re, (_, a1, major, _minor, rest) => `${a1}${major},9999${rest}`);
      },
    },
  });
  const p = planted.transactions;
  if (p.problems.length || !p.refused?.includes('(required ^3.9999.0)')) {
    failed++;
    log('planted: FAILED — the remote requiring a newer facade was not refused by the version check, or the check did not see it');
  } else log('planted: refused by the version check and reported, as it must be');
} finally {
  await browser.close();
}
const seconds = Math.round((Date.now() - start) / 1000);
if (failed) fail(`${failed} check(s) failed (base ${short}, ${seconds} s)`);
log(`every remote of this commit runs on the host of ${short} and every remote of ${short} on this commit's host (${seconds} s)`);
