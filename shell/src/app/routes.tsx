import { ROUTES } from '@paygate/sdk';
import type { RouteObject } from 'react-router';
import { LoginPage } from '../features/auth/login-page';
import { ConsoleLayout } from '../features/layout/console-layout';
import { NotFoundPage } from '../features/not-found/not-found-page';
import { RemoteScreen } from '../remotes/remote-screen';
import { RequireAuth, RouteGuard } from './guards';
import { ShellScreen } from './shell-screen';

/**
 * consoleRoutes is the whole route tree: /login, the guarded route table
 * inside the console layout (the shell's own screens and the remotes'), and
 * the Not Found page for any other path.
 */
export function consoleRoutes(): RouteObject[] {
  return [
    { path: '/login', element: <LoginPage /> },
    {
      element: (
        <RequireAuth>
          <ConsoleLayout />
        </RequireAuth>
      ),
      children: ROUTES.map((route) => ({
        path: route.path,
        element: (
          <RouteGuard route={route}>
            {route.remote === 'shell' ? (
              <ShellScreen screen={route.key} title={route.title} />
            ) : (
              <RemoteScreen remote={route.remote} path={route.path} title={route.title} />
            )}
          </RouteGuard>
        ),
      })),
    },
    { path: '*', element: <NotFoundPage /> },
  ];
}
