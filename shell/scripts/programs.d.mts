// Types of programs.mjs, for the tests that import it.

/** A folder (relative to the repository, with a trailing slash) a program may not hold files of. */
export interface Forbidden {
  prefix: string;
  why: string;
}

/** ConsoleProgram is one program `npm run typecheck` checks. */
export interface ConsoleProgram {
  /** The folder of its tsconfig.json, relative to the repository ('.' for the root). */
  name: string;
  tsconfig: string;
  forbidden: Forbidden[];
}

export const repoDir: string;
export function remoteNames(): string[];
export function consolePrograms(): ConsoleProgram[];
export function violations(program: ConsoleProgram, files: string[]): { file: string; why: string }[];
export function programFiles(tsconfig: string, options?: { planted?: Record<string, string>; cache?: Map<string, unknown> }): string[];
