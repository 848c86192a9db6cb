import { Center, Spinner } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import { auth, NoPermission, notify, session, useSession, type RouteSpec } from '@paygate/sdk';
import { useEffect, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { decide } from './access-rules';

function FullPageSpinner() {
  return (
    <Center minH="100vh">
      <Spinner size="lg" role="status" aria-label="Loading" />
    </Center>
  );
}

/**
 * ToLogin remembers the intended route (unless it is / or /login) and goes
 * to /login. After a Logout too: the next sign-in in this tab returns to the
 * route the user signed out from (e2e/security.spec.ts).
 */
function ToLogin() {
  const { pathname, search, hash } = useLocation();
  session.rememberRedirect(`${pathname}${search}${hash}`);
  return <Navigate to="/login" replace />;
}

/**
 * RequireAuth renders its children for a signed-in user. With a stored
 * access token but no user yet, it first fetches the user; without a user it
 * goes to /login.
 */
export function RequireAuth({ children }: { children: ReactNode }) {
  const { user, accessToken } = useSession();
  const fetched = useQuery({
    queryKey: ['session-user', accessToken],
    queryFn: () => auth.fetchUser(),
    enabled: !user && !!accessToken,
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
  if (user) return children;
  if (accessToken && !fetched.isError) return <FullPageSpinner />;
  return <ToLogin />;
}

/** Redirect sends the user elsewhere, with a toast when the rule has one. */
function Redirect({ to, toast }: { to: string; toast?: { title: string; description: string } }) {
  useEffect(() => {
    if (toast) notify.error(toast.title, toast.description);
  }, [toast]);
  return <Navigate to={to} replace />;
}

/** RouteGuard applies a route's access rule (spec 01 §2) to the signed-in user. */
export function RouteGuard({ route, children }: { route: RouteSpec; children: ReactNode }) {
  const { user } = useSession();
  const { pathname } = useLocation();
  if (!user) return null; // RequireAuth above never lets this happen.
  const decision = decide(user, route);
  if (decision.kind === 'allow') return children;
  // A user who may open nothing is already at the fallback: say so instead of looping.
  if (decision.to === pathname) {
    return <NoPermission />;
  }
  return <Redirect to={decision.to} toast={decision.toast} />;
}
