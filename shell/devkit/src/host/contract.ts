// The host's surface as the devkit sees it: what it needs to run the console
// around a remote standalone and to render the console in tests. Written here,
// against the SDK and the shared libraries only, so that a remote's type-check
// never reads the host's sources: remotes see `#host` through types.d.ts,
// which names these types; shell.ts holds the host's implementation and is
// checked against them in the devkit's own program (shell/devkit/tsconfig.json).
import type { QueryClient } from '@tanstack/react-query';
import type { RemoteManifest, RemoteName } from '@paygate/sdk';
import type { ComponentType, Provider, ReactNode } from 'react';
import type { RouteObject } from 'react-router';

/** RemoteLoader returns a remote's manifest; it rejects when the remote cannot be loaded. */
export interface RemoteLoader {
  (name: RemoteName): Promise<RemoteManifest>;
  /** forget drops a cached result so the next call loads again. */
  forget?(name: RemoteName): void;
}

/** MountOptions change how the console loads its remotes (a standalone run builds a remote in). */
export interface MountOptions {
  /** loadRemote returns a remote's manifest; `federated` loads it through its remote entry from config.json. */
  loadRemote?: (name: RemoteName, federated: (name: RemoteName) => Promise<RemoteManifest>) => Promise<RemoteManifest>;
  /** loadModule returns a module a remote exposes to the others; `federated` loads it through the remote's entry. */
  loadModule?: (name: RemoteName, path: string, federated: (name: RemoteName, path: string) => Promise<unknown>) => Promise<unknown>;
}

/** ConsoleHost is the host's embed surface (`@paygate/shell/embed`) the devkit uses. */
export interface ConsoleHost {
  /** ConsoleProviders holds the Chakra system and theme, the query client and the toaster. */
  readonly ConsoleProviders: ComponentType<{ children: ReactNode; queryClient?: QueryClient }>;
  /** consoleRoutes is the console's whole route tree. */
  readonly consoleRoutes: () => RouteObject[];
  /** mountConsole loads /config.json and renders the console into `element`. */
  readonly mountConsole: (element: HTMLElement, options?: MountOptions) => Promise<void>;
  /** cachedLoader loads each remote once; a failed load is forgotten so that a retry tries again. */
  readonly cachedLoader: (load: (name: RemoteName) => Promise<RemoteManifest>) => RemoteLoader;
  /** RemoteLoaderProvider gives the route tree the loader of the remotes. */
  readonly RemoteLoaderProvider: Provider<RemoteLoader | null>;
}
