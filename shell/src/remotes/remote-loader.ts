import type { RemoteManifest, RemoteName } from '@paygate/sdk';

/** RemoteLoader returns a remote's manifest; it rejects when the remote cannot be loaded. */
export interface RemoteLoader {
  (name: RemoteName): Promise<RemoteManifest>;
  /** forget drops a cached result so the next call loads again. */
  forget?(name: RemoteName): void;
}

/**
 * cachedLoader loads each remote once; a failed load is forgotten so that a
 * retry tries again.
 */
export function cachedLoader(load: (name: RemoteName) => Promise<RemoteManifest>): RemoteLoader {
  const cache = new Map<RemoteName, Promise<RemoteManifest>>();
  const loader: RemoteLoader = (name) => {
    let p = cache.get(name);
    if (!p) {
      p = load(name);
      cache.set(name, p);
      p.catch(() => cache.delete(name));
    }
    return p;
  };
  loader.forget = (name) => void cache.delete(name);
  return loader;
}
