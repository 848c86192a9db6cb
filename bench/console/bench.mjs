// Console weight benchmark: JavaScript bytes a browser downloads for /login and for the first
// open of each remote's screen, and the LCP of /login and /transactions, against a running stack
// (the built console on PAYGATE_BENCH_URL, default http://localhost:8080, with the demo data).
//
// Run under the e2e lock, on a fresh stack (see bench/README.md, "Console weight"):
//   flock /tmp/paygate-e2e.lock deploy/local/e2e.sh node bench/console/bench.mjs
//
// Bytes come from the Chrome DevTools Protocol: encodedDataLength of every finished response whose
// resource type is Script (the bytes on the wire, so compressed when the server compressed), and
// the decoded size beside it. LCP comes from a PerformanceObserver of largest-contentful-paint in
// the page. The ceiling is the LCP of a trivial page served by the same server in the same run
// (its plain-text 404), so a slower machine shows up in both columns.
//
// Flags: --runs N (LCP samples per page, the median is reported; default 5), --json (machine
// output), --verbose (every script of each step).
import { chromium } from 'playwright-core';

const BASE = process.env.PAYGATE_BENCH_URL ?? process.env.PAYGATE_E2E_URL ?? 'http://localhost:8080';
const CHROMIUM = process.env.PAYGATE_E2E_CHROMIUM ?? '/usr/bin/chromium';
const USER = 'admin';
const PASSWORD = 'paygate-demo';
const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1] || 0) || 5;
const JSON_OUT = args.includes('--json');
const VERBOSE = args.includes('--verbose');

/** The first screen of each remote, opened from the sidebar in this order after signing in. */
const SCREENS = [
  { remote: 'transactions', path: '/transactions', link: null }, // where admin lands after login
  { remote: 'providers', path: '/providers', link: 'Providers' },
  { remote: 'files', path: '/files', link: 'Files' },
  { remote: 'security', path: '/account-security', link: 'Account Security' },
];

/** Records the scripts a page downloads, through CDP. */
async function scriptRecorder(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  const pending = new Map();
  const inflight = new Set();
  let lastActivity = Date.now();
  let done = [];
  const busy = (type) => ['Script', 'Fetch', 'XHR', 'Document'].includes(type);
  cdp.on('Network.requestWillBeSent', (e) => {
    if (busy(e.type)) inflight.add(e.requestId);
    lastActivity = Date.now();
  });
  const settled = (e) => {
    if (inflight.delete(e.requestId)) lastActivity = Date.now();
  };
  cdp.on('Network.loadingFailed', settled);
  cdp.on('Network.responseReceived', (e) => {
    if (e.type === 'Script') pending.set(e.requestId, { url: e.response.url, encoding: e.response.headers['content-encoding'] ?? e.response.headers['Content-Encoding'] ?? '' });
  });
  cdp.on('Network.dataReceived', (e) => {
    const p = pending.get(e.requestId);
    if (p) p.decoded = (p.decoded ?? 0) + e.dataLength;
  });
  cdp.on('Network.loadingFinished', (e) => {
    settled(e);
    const p = pending.get(e.requestId);
    if (!p) return;
    pending.delete(e.requestId);
    done.push({ ...p, encoded: e.encodedDataLength, decoded: p.decoded ?? 0 });
  });
  return {
    cdp,
    /** quiet waits until no script, fetch or document request has been in flight for 1 s. */
    async quiet() {
      const start = Date.now();
      while (inflight.size > 0 || Date.now() - lastActivity < 1000) {
        if (Date.now() - start > 30_000) throw new Error(`the page was still loading after 30 s (${inflight.size} requests in flight)`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    /** take returns the scripts finished since the last call and forgets them. */
    take() {
      const out = done;
      done = [];
      return out;
    },
  };
}

function sum(scripts, filter = () => true) {
  const s = scripts.filter(filter);
  return {
    list: s.map((x) => `${new URL(x.url).pathname} ${x.encoded} / ${x.decoded}`),
    files: s.length,
    encoded: s.reduce((n, x) => n + x.encoded, 0),
    decoded: s.reduce((n, x) => n + x.decoded, 0),
    encodings: [...new Set(s.map((x) => x.encoding || 'identity'))].sort().join(','),
  };
}

/** loaded waits until the screen is rendered (no suspense spinner) and the network is quiet. */
async function loaded(page, rec) {
  for (;;) {
    await rec.quiet();
    if ((await page.getByLabel('Loading').count()) === 0) return;
    await page.getByLabel('Loading').first().waitFor({ state: 'detached' });
  }
}

const remoteOf = (url) => /\/remotes\/([^/]+)\//.exec(new URL(url).pathname)?.[1] ?? 'host';

/** lcp reads the page's largest contentful paint (ms since navigation start). */
async function lcp(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        let last = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) last = e.startTime;
        }).observe({ type: 'largest-contentful-paint', buffered: true });
        // LCP entries stop at the first input; a short wait after load collects the last one.
        setTimeout(() => resolve(last), 300);
      }),
  );
}

async function signIn(page) {
  await page.getByLabel('Username').fill(USER);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
}

async function weight(browser) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const rec = await scriptRecorder(page);
  await page.goto(`${BASE}/login`);
  await page.getByRole('button', { name: 'Login' }).waitFor();
  await rec.quiet();
  const login = sum(rec.take());

  const screens = [];
  for (const s of SCREENS) {
    // Each screen is its remote's first: its remote entry must load (a screen that never asks for
    // it is a bug this benchmark reports rather than measuring nothing).
    const entry = page.waitForResponse((r) => r.url().includes(`/remotes/${s.remote}/remoteEntry.js`), { timeout: 30_000 });
    if (s.link) await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: s.link, exact: true }).click();
    else await signIn(page);
    await page.waitForURL((u) => u.pathname === s.path);
    await entry;
    await loaded(page, rec);
    const scripts = rec.take();
    screens.push({
      ...s,
      remoteBytes: sum(scripts, (x) => remoteOf(x.url) === s.remote),
      hostBytes: sum(scripts, (x) => remoteOf(x.url) === 'host'),
      otherRemoteBytes: sum(scripts, (x) => !['host', s.remote].includes(remoteOf(x.url))),
    });
  }
  await context.close();
  return { login, screens };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** LCP of a cold load (empty cache) of each page, RUNS times; /transactions signed in. */
async function paints(browser) {
  const samples = { login: [], transactions: [], ceiling: [] };
  for (let i = 0; i < RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const rec = await scriptRecorder(page);
    await rec.cdp.send('Network.setCacheDisabled', { cacheDisabled: true });

    await page.goto(`${BASE}/bench-ceiling.txt`); // the server's plain-text 404: a trivial page
    samples.ceiling.push(await lcp(page));

    await page.goto(`${BASE}/login`);
    await page.getByRole('button', { name: 'Login' }).waitFor();
    await rec.quiet();
    samples.login.push(await lcp(page));

    await signIn(page);
    await page.waitForURL((u) => u.pathname === '/transactions');
    await rec.quiet();
    await page.goto(`${BASE}/transactions`); // a cold load of the signed-in screen
    await loaded(page, rec);
    samples.transactions.push(await lcp(page));
    await context.close();
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, { median: Math.round(median(v)), samples: v.map(Math.round) }]));
}

const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  const w = await weight(browser);
  const p = await paints(browser);
  const result = { base: BASE, date: new Date().toISOString(), ...w, lcp: p };
  if (JSON_OUT) {
    console.log(JSON.stringify(result, null, 2));
  } else {
    console.log(`console bench against ${BASE} (${new Date().toISOString()})`);
    console.log(`/login JS: ${kb(w.login.encoded)} transferred (${w.login.encodings}), ${kb(w.login.decoded)} uncompressed, ${w.login.files} files`);
    if (VERBOSE) console.log(`  ${w.login.list.join('\n  ')}`);
    for (const s of w.screens) {
      console.log(
        `${s.path} (${s.remote}) first open adds: remote ${kb(s.remoteBytes.encoded)} transferred / ${kb(s.remoteBytes.decoded)} uncompressed (${s.remoteBytes.files} files);` +
          ` host ${kb(s.hostBytes.encoded)} / ${kb(s.hostBytes.decoded)}; other remotes ${kb(s.otherRemoteBytes.encoded)}`,
      );
      if (VERBOSE) console.log(`  ${[...s.remoteBytes.list, ...s.hostBytes.list, ...s.otherRemoteBytes.list].join('\n  ')}`);
    }
    for (const [k, v] of Object.entries(p)) console.log(`LCP ${k}: median ${v.median} ms of ${v.samples.join(', ')}`);
  }
} finally {
  await browser.close();
}
