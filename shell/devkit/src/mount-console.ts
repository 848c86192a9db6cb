import type { RemoteName, RemoteRoutesModule } from '@paygate/sdk';
import { host } from '#host';

/** StandaloneOptions name the remotes a standalone bundle builds in. */
export interface StandaloneOptions {
  /** Remotes served from this bundle instead of through their remote entry. */
  localRemotes: Partial<Record<RemoteName, () => Promise<RemoteRoutesModule>>>;
  /**
   * Modules this bundle exposes to other remotes (the SDK's ExposedModules),
   * served from this bundle instead of through the remote entry.
   */
  localModules?: Partial<Record<RemoteName, Record<string, () => Promise<unknown>>>>;
}

/**
 * mountConsole runs the whole console around a remote under development: the
 * remotes in `localRemotes` come from this bundle, the others load from their
 * remote entries as /config.json says.
 */
export function mountConsole(element: HTMLElement, { localRemotes, localModules = {} }: StandaloneOptions): Promise<void> {
  return host.mountConsole(element, {
    loadRemote: async (name, federated) => {
      const local = localRemotes[name];
      return local ? (await local()).default : federated(name);
    },
    loadModule: (name, path, federated) => {
      const local = localModules[name]?.[path];
      return local ? local() : federated(name, path);
    },
  });
}
