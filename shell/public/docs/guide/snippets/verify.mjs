// Verify a Paygate callback (Standard Webhooks signature) in Node.js (an ES module), no dependencies.
//
// In an HTTP handler, verify the raw body bytes before parsing the JSON:
//   verify(secret, req.headers, rawBody) // throws when the callback is not genuine
//
// As a program (how Paygate's tests run it): the secret in PAYGATE_WEBHOOK_SECRET, the
// three webhook-* headers in WEBHOOK_ID, WEBHOOK_TIMESTAMP and WEBHOOK_SIGNATURE, the raw
// body on stdin; it prints "valid" or "invalid: <why>".
import crypto from 'node:crypto';
import { pathToFileURL } from 'node:url';

const TOLERANCE_SECONDS = 5 * 60;

export function verify(secret, headers, rawBody, nowSeconds = Math.floor(Date.now() / 1000)) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const id = headers['webhook-id'] ?? '';
  const ts = headers['webhook-timestamp'] ?? '';
  if (!/^\d+$/.test(ts)) throw new Error('webhook-timestamp is not a number');
  if (Math.abs(nowSeconds - Number(ts)) > TOLERANCE_SECONDS) throw new Error('webhook-timestamp is too far from now');
  const mac = crypto.createHmac('sha256', key);
  mac.update(`${id}.${ts}.`);
  mac.update(rawBody);
  const want = Buffer.from(`v1,${mac.digest('base64')}`);
  // The header may carry several signatures (during a secret rotation).
  const ok = (headers['webhook-signature'] ?? '')
    .split(' ')
    .filter(Boolean)
    .some((sig) => sig.length === want.length && crypto.timingSafeEqual(Buffer.from(sig), want));
  if (!ok) throw new Error('no signature matches');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const chunks = [];
  process.stdin.on('data', (c) => chunks.push(c));
  process.stdin.on('end', () => {
    const headers = {
      'webhook-id': process.env.WEBHOOK_ID,
      'webhook-timestamp': process.env.WEBHOOK_TIMESTAMP,
      'webhook-signature': process.env.WEBHOOK_SIGNATURE,
    };
    try {
      verify(process.env.PAYGATE_WEBHOOK_SECRET ?? '', headers, Buffer.concat(chunks));
      console.log('valid');
    } catch (e) {
      console.log(`invalid: ${e.message}`);
      process.exit(1);
    }
  });
}
