// Types of shared.js, for the tests that import it.

/** A revision of a kept list: its version and the names it added. */
export interface Revision {
  version: string;
  names: string[];
}

/** SharedList is a shared module's kept, versioned list of names (shared/<library>.json). */
export interface SharedList {
  library: string;
  revisions: Revision[];
}

export const repoDir: string;
export const FACADES: Record<string, string>;
export const LISTS: Record<string, string>;
export function listFile(lib: string): string;
export function readList(lib: string, text?: string): SharedList;
export function listedNames(list: SharedList): string[];
export function facadeVersion(list: SharedList): string;
export function requiredRange(list: SharedList, names: Iterable<string>): string;
export function nextVersion(list: SharedList, installed: string): string;
export function unlisted(list: SharedList, names: Iterable<string>): string | null;
export function listProblems(list: SharedList, installed: string): string[];
export function removals(older: SharedList, newer: SharedList): string[];
export function sourceFiles(dir: string): string[];
export function workspaceSources(): string[];
export function containerSources(dir: string): string[];
export function importedNames(
  libs: string[],
  files: (string | { file: string; text: string })[],
  options?: { wholeAsNull?: boolean },
): Map<string, Set<string> | null>;
