/// <reference types="webpack/module" />
import { isRemoteManifest, type RemoteManifest, type RemoteName, type RuntimeConfig } from '@paygate/sdk';

/** Script chunk load timeout (spec 01 §9); webpack's output.chunkLoadTimeout matches it. */
export const CHUNK_LOAD_TIMEOUT_MS = 120_000;

/** The webpack container interface a remote entry puts on window. */
interface Container {
  init(shareScope: unknown): Promise<void> | void;
  get(module: string): Promise<() => unknown>;
}

/** containerName is the global a remote's entry defines (its ModuleFederationPlugin name). */
export function containerName(remote: RemoteName): string {
  return `paygate_${remote}`;
}

function container(remote: RemoteName): Container | undefined {
  return (window as unknown as Record<string, Container | undefined>)[containerName(remote)];
}

function loadScript(url: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    const timer = window.setTimeout(() => done(new Error(`Loading ${url} timed out`)), timeoutMs);
    function done(err?: Error) {
      window.clearTimeout(timer);
      script.onload = script.onerror = null;
      if (err) {
        script.remove();
        reject(err);
      } else resolve();
    }
    script.src = url;
    script.async = true;
    script.onload = () => done();
    script.onerror = () => done(new Error(`Could not load ${url}`));
    document.head.appendChild(script);
  });
}

const entries = new Map<RemoteName, Promise<void>>();

/**
 * loadEntry adds a remote's entry script once, however many of its modules are
 * asked for while it loads (its routes and a module another remote uses).
 * Once settled it is forgotten: the container is then on window, or a retry
 * adds the script again.
 */
function loadEntry(remote: RemoteName, url: string): Promise<void> {
  let p = entries.get(remote);
  if (!p) {
    p = loadScript(url, CHUNK_LOAD_TIMEOUT_MS);
    entries.set(remote, p);
    const forget = () => void entries.delete(remote);
    p.then(forget, forget);
  }
  return p;
}

/**
 * loadFederatedModule loads a remote's entry from the URL in config.json
 * (once), joins the shared scope (so react, chakra, the query client and the
 * sdk stay singletons) and returns the module the remote exposes at `path`.
 */
export async function loadFederatedModule(remote: RemoteName, path: string, config: RuntimeConfig): Promise<unknown> {
  if (!container(remote)) await loadEntry(remote, config.remotes[remote]);
  const c = container(remote);
  if (!c) throw new Error(`The ${remote} remote entry did not define ${containerName(remote)}`);
  await __webpack_init_sharing__('default');
  await c.init(__webpack_share_scopes__.default);
  const factory = await c.get(path);
  return factory();
}

/** loadFederatedManifest returns the manifest a remote's `./routes` module exports. */
export async function loadFederatedManifest(remote: RemoteName, config: RuntimeConfig): Promise<RemoteManifest> {
  const mod = (await loadFederatedModule(remote, './routes', config)) as { default?: unknown };
  if (!isRemoteManifest(mod.default, remote)) throw new Error(`The ${remote} remote exposes no valid ./routes manifest`);
  return mod.default;
}
