import { useEffect, useState, type ComponentType } from 'react';
import type { ExportFilterJson } from '@paygate/gen/gateway/v1/files_pb';
import type { RemoteName } from './config';
import { isComponentLike } from './remote';

/**
 * ExportFilterLabels say how the transactions page shows some of its filters
 * (a collab's name, status names, the date range in the user's timezone), so
 * the export wizard lists them as the operator chose them. A filter without a
 * label is shown as its value.
 */
export interface ExportFilterLabels {
  collab?: string;
  type?: string;
  statuses?: string;
  dateRange?: string;
}

/**
 * ExportWizardProps are the props of the files remote's "Export Transactions"
 * wizard (spec 02 §2 "Export dialog"). The owner mounts it while it is open;
 * the wizard goes to /files by itself after an export started.
 */
export interface ExportWizardProps {
  /** The collab the transactions list shows; null: every collab in the user's scope. */
  collabId: number | null;
  /** The filters exactly as the list sends them to /collabs/{id}/transactions/advanced. */
  filter: ExportFilterJson;
  labels?: ExportFilterLabels;
  onClose: () => void;
}

/**
 * ExposedModules is the contract of the modules a remote exposes for other
 * remotes, besides `./routes`: per remote, per exposed path, the module's
 * shape. A remote's exposed file declares that it satisfies its entry
 * (`satisfies ExposedModule<'files', './export-wizard'>`), and its
 * webpack.config.js lists the path under `exposes`.
 */
export interface ExposedModules {
  files: {
    './export-wizard': { default: ComponentType<ExportWizardProps> };
  };
}

/** ExposingRemote names a remote that exposes modules to other remotes. */
export type ExposingRemote = keyof ExposedModules;

/** ExposedPath names a module remote R exposes. */
export type ExposedPath<R extends ExposingRemote> = keyof ExposedModules[R] & string;

/** ExposedModule is the shape of module P of remote R. */
export type ExposedModule<R extends ExposingRemote, P extends ExposedPath<R>> = ExposedModules[R][P];

const hasDefaultComponent = (m: unknown): boolean => !!m && typeof m === 'object' && isComponentLike((m as { default?: unknown }).default);

/**
 * EXPOSED_MODULES lists, for each exposing remote and exposed path, the run-time
 * check of what the remote really exposed (as isRemoteManifest does for
 * `./routes`); the build and the tests read the paths from here.
 */
export const EXPOSED_MODULES: { [R in ExposingRemote]: { [P in ExposedPath<R>]: (m: unknown) => boolean } } = {
  files: { './export-wizard': hasDefaultComponent },
};

/**
 * RemoteModuleLoader fetches module `path` of `remote`: the shell's loads it
 * through the remote's entry (Module Federation); a standalone run or a test
 * serves some modules from its own bundle.
 */
export type RemoteModuleLoader = (remote: RemoteName, path: string) => Promise<unknown>;

let moduleLoader: RemoteModuleLoader | null = null;
const loaded = new Map<string, Promise<unknown>>();

/**
 * setRemoteModuleLoader installs how exposed modules are fetched; the shell
 * calls it when it mounts (the SDK is a singleton, so every remote sees it).
 * It forgets the modules loaded so far.
 */
export function setRemoteModuleLoader(loader: RemoteModuleLoader | null): void {
  moduleLoader = loader;
  loaded.clear();
}

/**
 * loadRemoteModule loads module `path` exposed by `remote`, typed by the
 * ExposedModules contract, once; a failed load is forgotten so a retry loads
 * again. It rejects when no loader is installed, the remote cannot be reached
 * or the module does not have the contract's shape.
 */
export function loadRemoteModule<R extends ExposingRemote, P extends ExposedPath<R>>(remote: R, path: P): Promise<ExposedModule<R, P>> {
  const key = `${remote} ${path}`;
  let p = loaded.get(key);
  if (!p) {
    const loader = moduleLoader;
    const check = (EXPOSED_MODULES[remote] as Record<string, ((m: unknown) => boolean) | undefined>)[path];
    p = (async () => {
      if (!loader) throw new Error('No remote module loader is installed');
      if (!check) throw new Error(`The ${remote} remote exposes no module ${path}`);
      const mod = await loader(remote, path);
      if (!check(mod)) throw new Error(`The ${remote} remote's ${path} module does not have the expected shape`);
      return mod;
    })();
    loaded.set(key, p);
    p.catch(() => {
      if (loaded.get(key) === p) loaded.delete(key);
    });
  }
  return p as Promise<ExposedModule<R, P>>;
}

/** RemoteModuleState is where the loading of an exposed module stands. */
export type RemoteModuleState<M> =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'ready'; module: M }
  | { status: 'error'; error: Error; retry: () => void };

/**
 * useRemoteModule loads module `path` of `remote` while `enabled` (for
 * instance once its dialog is opened) and re-renders as it arrives; an error
 * offers a retry.
 */
export function useRemoteModule<R extends ExposingRemote, P extends ExposedPath<R>>(remote: R, path: P, enabled = true): RemoteModuleState<ExposedModule<R, P>> {
  type M = ExposedModule<R, P>;
  const [attempt, setAttempt] = useState(0);
  const [result, setResult] = useState<{ key: string; module?: M; error?: Error } | null>(null);
  const key = `${remote} ${path} ${attempt}`;

  useEffect(() => {
    if (!enabled) return;
    let live = true;
    loadRemoteModule(remote, path).then(
      (module) => live && setResult({ key, module }),
      (err: unknown) => live && setResult({ key, error: err instanceof Error ? err : new Error(String(err)) }),
    );
    return () => {
      live = false;
      // Closed (or retried): the next opening loads afresh, so a failure is not shown again.
      setResult(null);
    };
  }, [enabled, remote, path, key]);

  if (!enabled) return { status: 'idle' };
  if (result?.key !== key) return { status: 'loading' };
  if (result.error) return { status: 'error', error: result.error, retry: () => setAttempt((a) => a + 1) };
  return { status: 'ready', module: result.module as M };
}
