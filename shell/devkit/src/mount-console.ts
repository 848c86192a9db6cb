import type { RemoteName, RemoteRoutesModule } from '@paygate/sdk';
import { mountConsole as mountShell } from '@paygate/shell/embed';

/** StandaloneOptions name the remotes a standalone bundle builds in. */
export interface StandaloneOptions {
  /** Remotes served from this bundle instead of through their remote entry. */
  localRemotes: Partial<Record<RemoteName, () => Promise<RemoteRoutesModule>>>;
}

/**
 * mountConsole runs the whole console around a remote under development: the
 * remotes in `localRemotes` come from this bundle, the others load from their
 * remote entries as /config.json says.
 */
export function mountConsole(element: HTMLElement, { localRemotes }: StandaloneOptions): Promise<void> {
  return mountShell(element, {
    loadRemote: async (name, federated) => {
      const local = localRemotes[name];
      return local ? (await local()).default : federated(name);
    },
  });
}
