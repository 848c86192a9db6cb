// A small static server for the built console, laid out as the console
// expects in production: shell/dist at /, remotes/<name>/dist at
// /remotes/<name>/, the REST reference at /docs/, and index.html for every
// other path (client-side routes). Usage: node shell/scripts/serve.mjs [port]
// PAYGATE_CONSOLE_CONFIG=/path/to/config.json serves that file as /config.json.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const port = Number(process.argv[2] ?? process.env.PORT ?? 8080);
const host = process.env.HOST ?? '127.0.0.1';
const shellDist = path.join(repo, 'shell', 'dist');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

function fileFor(urlPath) {
  if (urlPath === '/config.json' && process.env.PAYGATE_CONSOLE_CONFIG) return path.resolve(process.env.PAYGATE_CONSOLE_CONFIG);
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

createServer((req, res) => {
  const urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  const looksLikeFile = path.extname(urlPath) !== '' || urlPath.startsWith('/remotes/') || urlPath.startsWith('/docs/');
  const file = fileFor(urlPath) ?? (looksLikeFile ? null : path.join(shellDist, 'index.html'));
  if (!file) {
    res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found');
    return;
  }
  const immutable = file.includes(`${path.sep}assets${path.sep}`);
  res.writeHead(200, {
    'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  createReadStream(file).pipe(res);
}).listen(port, host, () => console.log(`Paygate console on http://${host}:${port}/`));
