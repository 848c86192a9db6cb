import type { ComponentType } from 'react';
import type { NonIndexRouteObject } from 'react-router';
import type { RemoteName } from './config';
import { ROUTES, type ScreenKey, type ScreenOwner, type SCREENS } from './route-table';

/** ScreenOf names the screens the route table gives to N (a remote, or the shell). */
export type ScreenOf<N extends ScreenOwner> = { [K in ScreenKey]: (typeof SCREENS)[K]['remote'] extends N ? K : never }[ScreenKey];

/** The paths of the shell's own screens (the dashboard). */
type ShellPath = (typeof SCREENS)[ScreenOf<'shell'>]['path'];

/**
 * The paths of each remote's screens. The shell's own paths type-check too,
 * so that code going over the whole route table (the devkit's stub remotes)
 * compiles; isRemoteManifest refuses them at run time, and the shell never
 * asks a remote for them.
 */
type PathsOf = { [N in RemoteName]: (typeof SCREENS)[ScreenOf<N>]['path'] | ShellPath };

/**
 * RemoteRoute is a route object a remote provides for one of its screens of
 * the route table, its path taken from there (`SCREENS.callbacks.path`); the
 * shell mounts it under that path's guard, page title, error boundary and
 * suspense.
 */
export type RemoteRoute<N extends RemoteName = RemoteName> = Pick<NonIndexRouteObject, 'handle'> & {
  path: PathsOf[N];
  Component: ComponentType;
};

/**
 * RemoteManifest is what every remote's exposed `./routes` module exports as
 * default; `RemoteManifest<'transactions'>` admits only the transactions
 * remote's screens.
 */
export interface RemoteManifest<N extends RemoteName = RemoteName> {
  name: N;
  routes: RemoteRoute<N>[];
}

/** RemoteRoutesModule is the shape of a remote's `./routes` module. */
export interface RemoteRoutesModule {
  default: RemoteManifest;
}

/** isComponentLike tells whether a value can be rendered as a component. */
export function isComponentLike(c: unknown): boolean {
  // Plain function components, or the objects React.lazy / memo / forwardRef return.
  return typeof c === 'function' || (typeof c === 'object' && c !== null && '$$typeof' in c);
}

/** isRemoteManifest checks at run time what a remote really exposed. */
export function isRemoteManifest(value: unknown, name: RemoteName): value is RemoteManifest {
  if (!value || typeof value !== 'object') return false;
  const m = value as { name?: unknown; routes?: unknown };
  return (
    m.name === name &&
    Array.isArray(m.routes) &&
    m.routes.every(
      (r: unknown) =>
        !!r &&
        typeof r === 'object' &&
        ROUTES.some((route) => route.remote === name && route.path === (r as RemoteRoute).path) &&
        isComponentLike((r as RemoteRoute).Component),
    )
  );
}
