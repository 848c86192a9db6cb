// The console's shared surface as kept, versioned lists (shared/<library>.json): the shared
// libraries whose shared module is, in production, a facade (the library bundled down to the names
// of its list), and @paygate/sdk, shared whole, whose list is its exports.
//
// A list only grows. Each revision has a version and the names it added; the facade every
// container provides exports every name of every revision and carries the last revision's
// version; a container requires, strictly, `^` the version of the newest revision holding a name
// it imports. So a remote built later runs on an older host as long as it imports no name the
// host's list did not have yet, and when it does, Module Federation refuses to load it with
// "Unsatisfied version … of shared singleton module …" (the shell shows the remote's error
// screen; the rest of the console keeps working) instead of failing on an undefined component.
//
// Versions: the first revision is the library's `<major>.<minor>.0` the list was made from, so the
// facades built before the lists existed (they carried the library's version) count as that first
// revision; a later revision takes the next minor (or the library's, when that is higher). A new
// major of the library starts its list over (names may go); hosts and remotes then ship together.
// The SDK's first revision is 0.1.0, the version it was shared at before its list; its later
// revisions are 0.2.0, 0.3.0, … (required as `>=0.m.0 <1.0.0`).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const devkitDir = path.dirname(fileURLToPath(import.meta.url));
export const repoDir = path.resolve(devkitDir, '..', '..');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** The shared libraries served as facades, each with its list file. */
export const FACADES = {
  '@chakra-ui/react': 'shared/chakra-ui-react.json',
  'react-router': 'shared/react-router.json',
  '@tanstack/react-query': 'shared/tanstack-react-query.json',
};

/**
 * Every shared module with a kept list: the facades, and the SDK, whose list is its exports (the SDK
 * is shared whole; its list's version is the version it is shared at, whatever its package.json
 * says, and its first revision, 0.1.0, is the version the SDK was shared at before the list).
 */
export const LISTS = { ...FACADES, '@paygate/sdk': 'shared/paygate-sdk.json' };

/** listFile returns the path of lib's list, relative to the repository. */
export function listFile(lib) {
  const file = LISTS[lib];
  if (!file) throw new Error(`${lib} has no kept list`);
  return path.relative(repoDir, path.join(devkitDir, file)).split(path.sep).join('/');
}

/** readList returns lib's list as committed in the checkout (or parsed from `text`). */
export function readList(lib, text = readFileSync(path.join(repoDir, listFile(lib)), 'utf8')) {
  return JSON.parse(text);
}

/** listedNames returns every name of every revision, in the order they were added. */
export function listedNames(list) {
  return list.revisions.flatMap((r) => r.names);
}

/** facadeVersion is the version of the list's last revision: the version of its facade. */
export function facadeVersion(list) {
  const last = list.revisions.at(-1);
  if (!last) throw new Error(`the list of ${list.library} has no revision`);
  return last.version;
}

/**
 * requiredRange returns what a container importing `names` requires of the shared module: the
 * version of the newest revision that holds one of them (the first revision's when it imports
 * none) or a later one of the same major: `^M.m.0`, or `>=0.m.0 <1.0.0` for major 0 (where a caret
 * would hold the minor).
 */
export function requiredRange(list, names) {
  const wanted = new Set(names);
  let version = list.revisions[0]?.version;
  for (const r of list.revisions) if (r.names.some((n) => wanted.has(n))) version = r.version;
  const missing = [...wanted].filter((n) => !listedNames(list).includes(n));
  if (missing.length) throw new Error(unlistedMessage(list, missing));
  return version.startsWith('0.') ? `>=${version} <1.0.0` : `^${version}`;
}

const parse = (v) => {
  const m = /^(\d+)\.(\d+)\.0$/.exec(v ?? '');
  return m ? [Number(m[1]), Number(m[2])] : null;
};

/**
 * nextVersion is the version the list's next revision takes: the next minor, or the installed
 * library's minor when that is higher.
 */
export function nextVersion(list, installed) {
  const [major, minor] = parse(facadeVersion(list)) ?? [0, 0];
  const lib = installed.split('.').map(Number);
  return `${major}.${Math.max(minor + 1, lib[0] === major ? (lib[1] ?? 0) : 0)}.0`;
}

function unlistedMessage(list, names) {
  return (
    `the workspace imports ${names.sort().join(', ')} from ${list.library}, which ${listFile(list.library)} does not list: ` +
    `add them as a new revision at its end ({"version": "<next minor>.0", "names": [...]}); ` +
    `a remote that uses them then needs a host built with that revision (shell/README.md, "Shared libraries")`
  );
}

/** unlisted returns the error for names the workspace imports that the list lacks, or null. */
export function unlisted(list, names) {
  const listed = new Set(listedNames(list));
  const missing = [...names].filter((n) => !listed.has(n));
  return missing.length ? unlistedMessage(list, missing) : null;
}

/**
 * listProblems returns what is wrong with a list on its own: revisions with versions `M.m.0`, rising,
 * of the installed library's major, each adding at least one name no earlier revision holds.
 */
export function listProblems(list, installed) {
  const out = [];
  const major = Number(installed.split('.')[0]);
  const seen = new Set();
  let prev = null;
  if (!Array.isArray(list.revisions) || list.revisions.length === 0) return [`${list.library}: the list has no revision`];
  for (const [i, r] of list.revisions.entries()) {
    const v = parse(r.version);
    if (!v) out.push(`${list.library} revision ${i + 1}: version ${r.version} is not <major>.<minor>.0`);
    else {
      if (v[0] !== major) out.push(`${list.library} revision ${i + 1}: version ${r.version} is not of the installed major ${major} (a new major starts the list over)`);
      if (prev && !(v[0] === prev[0] && v[1] > prev[1])) out.push(`${list.library} revision ${i + 1}: version ${r.version} does not follow ${list.revisions[i - 1].version}`);
      prev = v;
    }
    if (!Array.isArray(r.names) || r.names.length === 0) out.push(`${list.library} revision ${i + 1}: it adds no name`);
    for (const n of r.names ?? []) {
      if (seen.has(n)) out.push(`${list.library} revision ${i + 1}: ${n} is listed twice`);
      seen.add(n);
    }
  }
  return out;
}

/**
 * removals returns how `newer` fails to keep `older`: every revision of the older list must stay,
 * with its version and all its names, at the same place (names are only ever added, in new
 * revisions at the end). A new major of the library starts over and is not compared.
 */
export function removals(older, newer) {
  const out = [];
  const major = (l) => parse(l.revisions?.[0]?.version)?.[0];
  if (major(older) !== major(newer)) return out;
  for (const [i, o] of older.revisions.entries()) {
    const n = newer.revisions[i];
    if (!n) {
      out.push(`${older.library}: revision ${o.version} was removed`);
      continue;
    }
    if (n.version !== o.version) out.push(`${older.library}: revision ${i + 1} was ${o.version}, now ${n.version}`);
    const gone = o.names.filter((name) => !n.names.includes(name));
    if (gone.length) out.push(`${older.library} ${o.version}: ${gone.join(', ')} removed (names are only ever added)`);
    const added = n.names.filter((name) => !o.names.includes(name));
    if (added.length) out.push(`${older.library} ${o.version}: ${added.join(', ')} added to a released revision (add a new revision instead)`);
  }
  return out;
}

/** sourceFiles lists the source files under dir (tests, node_modules and dist left out). */
export function sourceFiles(dir) {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(f);
      } else if (/\.[cm]?[jt]sx?$/.test(e.name) && !/\.(test|spec)\.[jt]sx?$/.test(e.name) && !e.name.endsWith('.d.ts')) files.push(f);
    }
  };
  if (existsSync(dir)) walk(dir);
  return files;
}

/** workspaceSources lists the source files of every workspace package's src/. */
export function workspaceSources() {
  const patterns = readJson(path.join(repoDir, 'package.json')).workspaces ?? [];
  const dirs = patterns.flatMap((p) => {
    if (!p.endsWith('/*')) return [path.join(repoDir, p)];
    const parent = path.join(repoDir, p.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(parent, e.name));
  });
  return dirs.flatMap((d) => sourceFiles(path.join(d, 'src')));
}

/** containerSources lists what a container built from dir runs of ours: its src/ and the SDK's. */
export function containerSources(dir) {
  return [...sourceFiles(path.join(dir, 'src')), ...sourceFiles(path.join(repoDir, 'shell', 'sdk', 'src'))];
}

/**
 * importedNames returns, for each library in libs, the set of value names the files import or
 * re-export from it. `files` are paths, or `{ file, text }` for text not on disk. A default,
 * namespace or `export *` import of a facade is an error (the facade holds only listed names);
 * with `wholeAsNull` such a library's entry is null instead.
 */
export function importedNames(libs, files, { wholeAsNull = false } = {}) {
  const names = new Map(libs.map((l) => [l, new Set()]));
  for (const entry of files) {
    const { file, text } = typeof entry === 'string' ? { file: entry, text: readFileSync(entry, 'utf8') } : entry;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
    for (const st of source.statements) {
      if (!(ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) || !st.moduleSpecifier || !ts.isStringLiteral(st.moduleSpecifier)) continue;
      if (!names.has(st.moduleSpecifier.text)) continue;
      const set = names.get(st.moduleSpecifier.text) ?? new Set();
      let whole = false;
      if (ts.isImportDeclaration(st)) {
        const clause = st.importClause;
        if (!clause) continue; // import 'lib' for its side effects: the facade keeps the module's
        if (clause.isTypeOnly) continue;
        const bindings = clause.namedBindings;
        whole = Boolean(clause.name) || (bindings !== undefined && ts.isNamespaceImport(bindings));
        if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) if (!el.isTypeOnly) set.add((el.propertyName ?? el.name).text);
      } else if (!st.isTypeOnly) {
        const clause = st.exportClause;
        whole = !clause || ts.isNamespaceExport(clause);
        if (clause && ts.isNamedExports(clause)) for (const el of clause.elements) if (!el.isTypeOnly) set.add((el.propertyName ?? el.name).text);
      }
      if (whole && wholeAsNull) names.set(st.moduleSpecifier.text, null);
      else if (whole) throw new Error(`${path.relative(repoDir, file)} imports ${st.moduleSpecifier.text} whole: import names from it (its shared module is a facade of the names in ${listFile(st.moduleSpecifier.text)})`);
    }
  }
  return names;
}
