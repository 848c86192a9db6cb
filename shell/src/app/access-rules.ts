import { DEFAULT_LANDING, hasAnyPermission, hasPermission, meets, ROUTES, SCREENS, type RouteSpec, type User } from '@paygate/sdk';

/** Decision is what a guard does with a signed-in user on a route. */
export type Decision =
  | { kind: 'allow' }
  | { kind: 'redirect'; to: string; toast?: { title: string; description: string } };

const allow: Decision = { kind: 'allow' };
const redirect = (to: string, toast?: { title: string; description: string }): Decision =>
  toast ? { kind: 'redirect', to, toast } : { kind: 'redirect', to };

/** mayOpenByPermission tells whether a permission-guarded route (incl. the dashboard) is open to the user. */
function mayOpenByPermission(user: User, route: RouteSpec): boolean {
  switch (route.access.kind) {
    case 'dashboard':
      return hasPermission(user, 'Statistics Access');
    case 'permissions':
      return hasAnyPermission(user, route.access.permissions);
    default:
      return false;
  }
}

/**
 * firstAccessibleRoute is the first permission-guarded route of the table the
 * user may open, or undefined.
 */
export function firstAccessibleRoute(user: User): string | undefined {
  return ROUTES.find((r) => mayOpenByPermission(user, r))?.link;
}

/**
 * passwordFormOf is where a user with a temporary password replaces it: the
 * spec's /change-password with Edit User, else /temporary-password (the same
 * form; docs/contracts-security.md "Changing one's own password").
 */
export function passwordFormOf(user: User): string {
  return hasPermission(user, 'Edit User') ? SCREENS.changePassword.link : SCREENS.temporaryPassword.link;
}

/**
 * decide applies the route guards of spec 01 §2 to a signed-in user. A user
 * with a temporary password may call nothing else until it is replaced (the
 * server refuses every other call), so every other route sends them to their
 * password form; the spec's guard of /change-password stands as written.
 */
export function decide(user: User, route: RouteSpec): Decision {
  const access = route.access;
  if (user.isTemporaryPassword && access.kind !== 'change-password' && access.kind !== 'temporary-password') {
    return redirect(passwordFormOf(user));
  }
  switch (access.kind) {
    case 'login':
      return allow;
    case 'dashboard':
      return hasPermission(user, 'Statistics Access') ? allow : redirect(DEFAULT_LANDING);
    case 'permissions':
      return hasAnyPermission(user, access.permissions) ? allow : redirect(firstAccessibleRoute(user) ?? DEFAULT_LANDING);
    case 'requirement':
      if (meets(user, access.requirement)) return allow;
      // The spec sends a user "lacking the required role" to / when a role
      // of theirs may open the dashboard: restated, when they hold
      // Statistics Access, the dashboard's own guard. No such route is "/".
      return redirect(hasPermission(user, 'Statistics Access') ? SCREENS.dashboard.link : DEFAULT_LANDING);
    case 'change-password':
      if (!user.isTemporaryPassword) return redirect(DEFAULT_LANDING);
      if (!hasPermission(user, 'Edit User')) {
        return redirect(DEFAULT_LANDING, { title: 'Access Denied', description: 'You do not have permission to change passwords.' });
      }
      return allow;
    case 'temporary-password':
      return user.isTemporaryPassword ? allow : redirect(DEFAULT_LANDING);
  }
}
