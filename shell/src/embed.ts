// The shell's surface for @paygate/devkit (and only for it): what the devkit
// needs to run the console around a remote standalone and to render it in
// tests. Only the devkit's bridge (shell/devkit/src/host/shell.ts) imports it,
// and checks it against the devkit's contract (host/contract.ts): change both
// together. Remotes never import the shell; ESLint keeps it so.
export { ConsoleProviders } from './app/providers';
export { consoleRoutes } from './app/routes';
export { mountConsole, type MountOptions } from './console';
export { cachedLoader, type RemoteLoader } from './remotes/remote-loader';
export { RemoteLoaderProvider } from './remotes/remote-screen';
