import * as sdk from '@paygate/sdk';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FACADES,
  facadeVersion,
  importedNames,
  LISTS,
  listedNames,
  listFile,
  listProblems,
  nextVersion,
  readList,
  removals,
  repoDir,
  requiredRange,
  unlisted,
  workspaceSources,
  type SharedList,
} from '../shared.js';

// The shared surface is a kept, versioned superset (shared.js, shell/README.md "Shared libraries"):
// every name the workspace imports from a facade library is listed, the SDK's list is its exports,
// and no name ever leaves a list that was committed before.
const require = createRequire(import.meta.url);
const semver = require('webpack/lib/sharing/semver.js') as { parseRange(range: string): unknown; satisfy(range: unknown, version: string): boolean };
const satisfies = (version: string, range: string) => semver.satisfy(semver.parseRange(range), version);
const installed = (lib: string) =>
  lib === '@paygate/sdk'
    ? (JSON.parse(readFileSync(path.join(repoDir, 'shell/sdk/package.json'), 'utf8')) as { version: string }).version
    : (require(`${lib}/package.json`) as { version: string }).version;
const git = (...args: string[]) => {
  try {
    return execFileSync('git', args, { cwd: repoDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
};

const withRevision = (list: SharedList, version: string, names: string[]): SharedList => ({ ...list, revisions: [...list.revisions, { version, names }] });

describe('the kept lists of the shared surface', () => {
  const libs = Object.keys(LISTS);

  it.each(libs)('%s: the list is well formed, of the installed major', (lib) => {
    expect(listProblems(readList(lib), installed(lib))).toEqual([]);
  });

  it.each(Object.keys(FACADES))('%s: the workspace imports only listed names', (lib) => {
    const imported = importedNames(Object.keys(FACADES), workspaceSources()).get(lib);
    expect(imported?.size).toBeGreaterThan(0);
    expect(unlisted(readList(lib), imported ?? [])).toBeNull();
  });

  it("@paygate/sdk: the list holds exactly the SDK's exports (a new export goes into a new revision; none goes)", () => {
    const listed = listedNames(readList('@paygate/sdk')).sort();
    const exported = Object.keys(sdk).sort();
    expect({ unlisted: exported.filter((n) => !listed.includes(n)), removed: listed.filter((n) => !exported.includes(n)) }).toEqual({ unlisted: [], removed: [] });
  });

  // The lists as committed before: at HEAD (against uncommitted edits), at HEAD~1 and at the newest
  // release tag. A clone without that history compares what it has.
  const tag = git('describe', '--tags', '--abbrev=0', '--match', 'v*', 'HEAD');
  const earlier = libs.flatMap((lib) =>
    ['HEAD', 'HEAD~1', ...(tag ? [tag] : [])].flatMap((ref) => {
      const text = git('show', `${ref}:${listFile(lib)}`);
      return text ? [{ lib, ref, list: readList(lib, text) }] : [];
    }),
  );
  it.each(earlier.map((e) => [e.lib, e.ref, e.list] as const))('%s keeps every name its list had at %s', (lib, _ref, older) => {
    expect(removals(older, readList(lib))).toEqual([]);
  });

  it('finds a name taken out, a revision taken out and a name slipped into a released revision', () => {
    const list = readList('@chakra-ui/react');
    const [first] = list.revisions;
    if (!first) throw new Error('no revision');
    const later = withRevision(list, '3.38.0', ['Kbd']);
    expect(removals(later, list)).toEqual(['@chakra-ui/react: revision 3.38.0 was removed']);
    const without = { ...list, revisions: [{ ...first, names: first.names.filter((n) => n !== 'Badge') }] };
    expect(removals(list, without)).toEqual(['@chakra-ui/react 3.37.0: Badge removed (names are only ever added)']);
    const slipped = { ...list, revisions: [{ ...first, names: [...first.names, 'Kbd'] }] };
    expect(removals(list, slipped)).toEqual(['@chakra-ui/react 3.37.0: Kbd added to a released revision (add a new revision instead)']);
    expect(removals(list, later)).toEqual([]);
  });

  it('fails a workspace that imports an unlisted name, or a facade library whole', () => {
    const planted = { file: path.join(repoDir, 'remotes/files/src/planted.tsx'), text: "import { Badge, Kbd } from '@chakra-ui/react';\n" };
    const names = importedNames(['@chakra-ui/react'], [planted]).get('@chakra-ui/react') ?? [];
    expect(unlisted(readList('@chakra-ui/react'), names)).toMatch(/imports Kbd from @chakra-ui\/react, which shell\/devkit\/shared\/chakra-ui-react.json does not list/);
    const whole = { file: planted.file, text: "import * as Chakra from '@chakra-ui/react';\n" };
    expect(() => importedNames(['@chakra-ui/react'], [whole])).toThrow(/imports @chakra-ui\/react whole/);
    expect(importedNames(['@chakra-ui/react'], [whole], { wholeAsNull: true }).get('@chakra-ui/react')).toBeNull();
  });

  it('requires the newest revision a container uses, which an older host does not satisfy', () => {
    const list = withRevision(readList('@chakra-ui/react'), '3.38.0', ['Kbd']);
    expect(requiredRange(list, ['Badge'])).toBe('^3.37.0');
    expect(requiredRange(list, ['Badge', 'Kbd'])).toBe('^3.38.0');
    expect(requiredRange(list, [])).toBe('^3.37.0');
    expect(() => requiredRange(list, ['Nope'])).toThrow(/imports Nope/);
    expect(facadeVersion(list)).toBe('3.38.0');
    expect(nextVersion(list, '3.37.0')).toBe('3.39.0');
    expect(nextVersion(list, '3.41.2')).toBe('3.41.0');
    // Module Federation's own semver: a host of 3.38.0 serves both, a host of 3.37.0 only the first.
    expect(satisfies('3.38.0', '^3.37.0')).toBe(true);
    expect(satisfies('3.37.0', '^3.38.0')).toBe(false);
    // The SDK's versions are 0.x: the range keeps later minors.
    const sdkList = withRevision(readList('@paygate/sdk'), '0.2.0', ['plantedExport']);
    expect(requiredRange(sdkList, ['session'])).toBe('>=0.1.0 <1.0.0');
    expect(requiredRange(sdkList, ['plantedExport'])).toBe('>=0.2.0 <1.0.0');
    expect(satisfies('0.2.0', '>=0.1.0 <1.0.0')).toBe(true);
    expect(satisfies('0.1.0', '>=0.2.0 <1.0.0')).toBe(false);
  });

  it.each(libs)('%s: the first revision meets the containers built before the lists, both ways', (lib) => {
    const first = readList(lib).revisions[0]?.version ?? '';
    // Before the lists a container provided the library's installed version (the SDK its
    // package.json's) and required its package.json's range, not strictly.
    const deps = (JSON.parse(readFileSync(path.join(repoDir, 'remotes/transactions/package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies;
    expect(satisfies(installed(lib), requiredRange(readList(lib), []))).toBe(true);
    expect(satisfies(first, deps[lib] ?? '')).toBe(true);
  });
});
