import { useSyncExternalStore } from 'react';
import type { User } from './access';
import { ApiClient } from './api-client';
import { createAuth } from './auth';
import { SessionStore, type SessionState } from './session';

/** The console's session (a singleton shared by the shell and every remote). */
export const session = new SessionStore();

/** The console's API client. */
export const api = new ApiClient({ session });

/** The console's auth calls. */
export const auth = createAuth(api, session);

/** useSession returns the auth state and re-renders when it changes. */
export function useSession(): SessionState {
  return useSyncExternalStore(session.subscribe, session.getState, session.getState);
}

/** useUser returns the signed-in user, or null. */
export function useUser(): User | null {
  return useSession().user;
}
