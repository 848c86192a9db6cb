import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Issue 31: /login downloads at most 170 KB of JavaScript, so the modules the
// console's entry runs at /login import, statically, none of the shared
// libraries that carry Chakra UI (the SDK imports it too) or react-query.
// Type-only imports are erased by the build; dynamic import() is how they
// load later. This walks the entry's static imports within shell/src.
const HEAVY = ['@chakra-ui/react', '@paygate/sdk', '@tanstack/react-query'];
const HEAVY_PREFIX = ['@emotion/'];

/** staticImports returns the specifiers a file imports as values (not `import type`, not import()). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?[^;]*?\s+from\s+'([^']+)';/gms)) {
    if (!m[1] && m[2]) out.push(m[2]);
  }
  for (const m of text.matchAll(/^import\s+'([^']+)';/gm)) if (m[1]) out.push(m[1]);
  return out;
}

function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const ext of ['.ts', '.tsx', '/index.ts', '/index.tsx']) {
    try {
      readFileSync(base + ext);
      return base + ext;
    } catch {
      // try the next extension
    }
  }
  throw new Error(`${from}: cannot resolve ${spec}`);
}

describe('the signed-out entry (console.tsx and the sign-in page)', () => {
  it('imports no Chakra UI, Emotion, SDK or react-query value, directly or through shell/src', () => {
    const start = path.join(import.meta.dirname, 'console.tsx');
    const seen = new Set<string>();
    const heavy: string[] = [];
    const queue = [start];
    while (queue.length) {
      const file = queue.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const spec of staticImports(file)) {
        if (HEAVY.includes(spec) || HEAVY_PREFIX.some((p) => spec.startsWith(p))) heavy.push(`${path.basename(file)} imports ${spec}`);
        const next = resolve(file, spec);
        if (next) queue.push(next);
      }
    }
    expect(heavy).toEqual([]);
    // The walk reaches the sign-in page, and stops short of the whole console.
    expect([...seen].map((f) => path.basename(f))).toContain('login-page.tsx');
    expect([...seen].map((f) => path.basename(f))).not.toContain('console-full.tsx');
  });

  it('would notice one', () => {
    expect(staticImports(path.join(import.meta.dirname, 'console-full.tsx'))).toContain('@paygate/sdk');
  });
});
