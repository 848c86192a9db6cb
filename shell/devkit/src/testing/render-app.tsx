import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { QueryClient } from '@tanstack/react-query';
import { EXPOSED_MODULES, ROUTES, session, setRemoteModuleLoader, type RemoteManifest, type RemoteName } from '@paygate/sdk';
import type { ComponentType } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router';
import { host } from '#host';
import type { RemoteLoader } from '../host/contract';
import { tokensFor, type TestUser } from './tokens';

const { cachedLoader, ConsoleProviders, consoleRoutes, RemoteLoaderProvider } = host;

export { cachedLoader, type RemoteLoader };

/**
 * stubRemotes provides, for every route-table path, a stub screen reading
 * 'Screen <path>' from the remote that owns the path.
 */
export function stubRemotes(): RemoteLoader {
  return cachedLoader(async (name: RemoteName): Promise<RemoteManifest> => ({
    name,
    routes: ROUTES.filter((r) => r.remote === name).map(({ path }) => ({
      path,
      Component: () => <p>Screen {path}</p>,
    })),
  }));
}

/** withRemote serves `manifest` for its own remote (the one under test) and stubs the others. */
export function withRemote(manifest: RemoteManifest): RemoteLoader {
  const stubs = stubRemotes();
  return cachedLoader((name) => (name === manifest.name ? Promise.resolve(manifest) : stubs(name)));
}

/** LocalModules serve modules remotes expose to each other (the SDK's ExposedModules) from the test's own imports. */
export type LocalModules = Partial<Record<RemoteName, Record<string, () => Promise<unknown>>>>;

/**
 * stubModule is what a test that does not provide an exposed module gets: a
 * component reading 'Module <remote> <path>' (so a test can see it opened).
 */
function stubModule(remote: RemoteName, path: string): { default: ComponentType } {
  return { default: () => <p>Module {remote} {path}</p> };
}

/**
 * installModules makes loadRemoteModule serve `modules`, and a stub for every
 * other module of the SDK's EXPOSED_MODULES.
 */
export function installModules(modules: LocalModules = {}): void {
  setRemoteModuleLoader(async (remote, path) => {
    const local = modules[remote]?.[path];
    if (local) return local();
    if (path in ((EXPOSED_MODULES as Partial<Record<RemoteName, object>>)[remote] ?? {})) return stubModule(remote, path);
    throw new Error(`The ${remote} remote exposes no module ${path}`);
  });
}

/** RenderAppOptions choose the starting URL, the signed-in user and the remotes. */
export interface RenderAppOptions {
  /** Signed in as this user (tokens stored, user set); signed out when absent. */
  user?: TestUser;
  /** Overrides the remote loader (default: stubRemotes). */
  loader?: RemoteLoader;
  /** Modules remotes expose to each other, served from the test (default: stubs). */
  modules?: LocalModules;
}

/** renderApp renders the whole console at `path` in a memory router. */
export function renderApp(path: string, { user, loader = stubRemotes(), modules }: RenderAppOptions = {}) {
  if (user) session.signIn(tokensFor(user));
  installModules(modules);
  const router = createMemoryRouter(consoleRoutes(), { initialEntries: [path] });
  session.bindNavigation({
    current: () => {
      const { pathname, search, hash } = router.state.location;
      return `${pathname}${search}${hash}`;
    },
    go: (to) => void router.navigate(to, { replace: true }),
  });
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const view = render(
    <ConsoleProviders queryClient={queryClient}>
      <RemoteLoaderProvider value={loader}>
        <RouterProvider router={router} />
      </RemoteLoaderProvider>
    </ConsoleProviders>,
  );
  return { ...view, router, user: userEvent.setup(), queryClient };
}

/** locationOf returns the router's current path and query. */
export function locationOf(router: ReturnType<typeof createMemoryRouter>): string {
  return `${router.state.location.pathname}${router.state.location.search}`;
}
