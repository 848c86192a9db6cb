import type { ComponentType } from 'react';
import type { NonIndexRouteObject } from 'react-router';
import type { RemoteName } from './config';

/** The screen paths of the route table (spec 01 §2); the shell owns the guards. */
export const SCREEN_PATHS = [
  '/',
  '/providers',
  '/merchants',
  '/fees',
  '/transactions/:id?',
  '/files',
  '/callbacks',
  '/validation-endpoints',
  '/fraud-management',
  '/balances',
  '/credentials',
  '/account-security',
  '/jobs',
  '/settings',
  '/simulate-payment',
  '/change-password',
] as const;

/** ScreenPath is a path of the route table that a remote may provide a screen for. */
export type ScreenPath = (typeof SCREEN_PATHS)[number];

/**
 * RemoteRoute is a route object a remote provides for one screen of the route
 * table; the shell mounts it under that path's guard, page title, error
 * boundary and suspense.
 */
export type RemoteRoute = Pick<NonIndexRouteObject, 'handle'> & {
  path: ScreenPath;
  Component: ComponentType;
};

/** RemoteManifest is what every remote's exposed `./routes` module exports as default. */
export interface RemoteManifest {
  name: RemoteName;
  routes: RemoteRoute[];
}

/** RemoteRoutesModule is the shape of a remote's `./routes` module. */
export interface RemoteRoutesModule {
  default: RemoteManifest;
}

function isComponent(c: unknown): boolean {
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
        (SCREEN_PATHS as readonly unknown[]).includes((r as RemoteRoute).path) &&
        isComponent((r as RemoteRoute).Component),
    )
  );
}
