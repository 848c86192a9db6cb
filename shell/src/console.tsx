import type { RemoteManifest, RemoteName } from '@paygate/sdk';
import { StrictMode, useEffect, useState } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { applyTheme, storedDarkMode } from './app/theme';
import { LoginPage } from './features/auth/login-page';

/** MountOptions change how the console loads its remotes (the devkit's standalone runs build a remote in). */
export interface MountOptions {
  /**
   * loadRemote returns a remote's manifest; `federated` loads it through its
   * remote entry from config.json, which is what the console does without it.
   */
  loadRemote?: (name: RemoteName, federated: (name: RemoteName) => Promise<RemoteManifest>) => Promise<RemoteManifest>;
  /**
   * loadModule returns a module one remote exposes to the others (the SDK's
   * ExposedModules, e.g. the files remote's export wizard); `federated` loads
   * it through the remote's entry, which is what the console does without it.
   */
  loadModule?: (name: RemoteName, path: string, federated: (name: RemoteName, path: string) => Promise<unknown>) => Promise<unknown>;
}

/** The paths the console opens without Chakra UI, the SDK or the query client: the sign-in page. */
const SIGNED_OUT_PATHS = new Set(['/login', '/login/']);

let full: Promise<void> | null = null;

/**
 * mountFull loads the whole console (console-full.tsx) once, and renders it
 * into root; a failed load is forgotten, so that the next call tries again.
 */
function mountFull(root: Root, options: MountOptions, before?: () => void): Promise<void> {
  full ??= import('./console-full').then(({ mountFullConsole }) => {
    before?.();
    return mountFullConsole(root, options);
  });
  full.catch(() => {
    full = null;
  });
  return full;
}

/**
 * mountConsole renders the console into `element`. Opened at /login, it
 * renders the sign-in page alone, in a router of its own: React, React
 * Router and the page (issue 31: /login downloads at most 170 KB of
 * JavaScript). The whole console, Chakra UI, the SDK and the query client
 * included, loads (console-full.tsx) when that router leaves /login, i.e.
 * after signing in, and at once on any other path.
 */
export async function mountConsole(element: HTMLElement, options: MountOptions = {}): Promise<void> {
  applyTheme(storedDarkMode());
  const root = createRoot(element);
  if (!SIGNED_OUT_PATHS.has(window.location.pathname)) {
    await mountFull(root, options);
    return;
  }
  // The sign-in router stops listening to the history once the whole console takes over.
  const loadFull = () => mountFull(root, options, () => router.dispose());
  const router = createBrowserRouter([
    { path: '/login', element: <LoginPage /> },
    { path: '*', element: <LoadFullConsole load={loadFull} /> },
  ]);
  root.render(
    <StrictMode>
      <RouterProvider router={router} />
    </StrictMode>,
  );
}

/** LoadFullConsole stands in for every path but /login until the whole console replaces the sign-in router. */
function LoadFullConsole({ load }: { load: () => Promise<void> }) {
  const [error, setError] = useState('');
  useEffect(() => {
    load().catch((err: unknown) => setError(err instanceof Error ? err.message : String(err)));
  }, [load]);
  if (error) return <p role="alert">The console could not load ({error}). Reload the page to try again.</p>;
  return <p role="status" aria-label="Loading" />;
}
