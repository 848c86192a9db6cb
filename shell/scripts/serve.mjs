// A small static server for the built console, laid out as the console
// expects in production: shell/dist at /, remotes/<name>/dist at
// /remotes/<name>/, the REST reference at /docs/, and index.html for every
// other path (client-side routes). Usage: node shell/scripts/serve.mjs [port]
// PAYGATE_CONSOLE_CONFIG=/path/to/config.json serves that file as /config.json.
//
// It serves as deploy/devstack (console.go) and the image's server (deploy/images/console) do: the
// build's precompressed copies (name.br, name.gz) by Accept-Encoding, hashed
// files under assets/ cached for a year, everything else revalidated, and the
// security headers (with connect-src from config.json) on every response.
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';
const shellDist = path.join(repo, 'shell', 'dist');
const configFile = process.env.PAYGATE_CONSOLE_CONFIG ? path.resolve(process.env.PAYGATE_CONSOLE_CONFIG) : path.join(shellDist, 'config.json');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** The origin of an absolute http(s) URL, or null (relative URLs are 'self'). */
function originOf(raw) {
  try {
    const u = new URL(raw);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch {
    return null;
  }
}

/** The Content-Security-Policy for a console config (the rules of deploy/devstack/console.go). */
function csp(config) {
  const list = (urls) => [...new Set(["'self'", ...urls.map(originOf).filter(Boolean)])].join(' ');
  return [
    "default-src 'self'",
    `script-src ${list(Object.values(config.remotes ?? {}))}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${list([config.authUrl, config.gatewayUrl, config.callbacksUrl, config.aggregatorUrl].filter(Boolean))}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const securityHeaders = {
  'Content-Security-Policy': csp(JSON.parse(readFileSync(configFile, 'utf8'))),
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

function fileFor(urlPath) {
  if (urlPath === '/config.json') return configFile;
  const remote = /^\/remotes\/(transactions|providers|files|security)(\/.*)$/.exec(urlPath);
  const [root, rel] = remote ? [path.join(repo, 'remotes', remote[1], 'dist'), remote[2]] : [shellDist, urlPath];
  let file = path.join(root, path.normalize(rel));
  if (!file.startsWith(root)) return null;
  try {
    if (statSync(file).isDirectory()) file = path.join(file, 'index.html');
    return statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/** The precompressed codings the client accepts, best first (brotli before gzip on a tie). */
function accepted(header = '') {
  const q = new Map();
  for (const part of header.split(',')) {
    const [name, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qv = params.find((p) => p.startsWith('q='));
    const weight = qv ? Number(qv.slice(2)) : 1;
    if (name && !Number.isNaN(weight)) q.set(name === 'x-gzip' ? 'gzip' : name, weight);
  }
  const weight = (enc) => q.get(enc) ?? q.get('*') ?? 0;
  return ['br', 'gzip'].filter((enc) => weight(enc) > 0).sort((a, b) => weight(b) - weight(a));
}

const SUFFIX = { br: '.br', gzip: '.gz' };

createServer((req, res) => {
  for (const [k, v] of Object.entries(securityHeaders)) res.setHeader(k, v);
  const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  const looksLikeFile = path.extname(urlPath) !== '' || urlPath.startsWith('/remotes/') || urlPath.startsWith('/docs/');
  const file = fileFor(urlPath) ?? (looksLikeFile ? null : path.join(shellDist, 'index.html'));
  if (!file) {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
    return;
  }
  const headers = {
    'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'Cache-Control': file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
    Vary: 'Accept-Encoding',
  };
  let send = file;
  if (file !== configFile) {
    for (const enc of accepted(req.headers['accept-encoding'])) {
      try {
        if (statSync(file + SUFFIX[enc]).isFile()) {
          send = file + SUFFIX[enc];
          headers['Content-Encoding'] = enc;
          break;
        }
      } catch {
        // no copy in this coding
      }
    }
  }
  res.writeHead(200, { ...headers, 'Content-Length': statSync(send).size });
  if (req.method === 'HEAD') res.end();
  else createReadStream(send).pipe(res);
}).listen(port, host, () => console.log(`Paygate console on http://${host}:${port}/`));
