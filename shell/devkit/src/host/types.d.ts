// The types of `#host` (the devkit's package.json "imports"): the contract, not
// the host's sources, so a program that reaches the devkit (every remote's)
// holds no file of shell/src.
import type { ConsoleHost } from './contract';

/** host is the console host's embed surface, resolved to shell.ts when a bundle or a test runs. */
export declare const host: ConsoleHost;
