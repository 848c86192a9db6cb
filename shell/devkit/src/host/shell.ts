// What `#host` runs: the host's embed surface, the devkit's only import of the
// shell. Webpack and Vitest resolve `#host` here; TypeScript reads types.d.ts
// instead, and this assignment checks, in the devkit's program, that the host
// still fulfils the contract.
import * as embed from '@paygate/shell/embed';
import type { ConsoleHost } from './contract';

export const host: ConsoleHost = embed;
