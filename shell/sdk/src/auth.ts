import type {
  LoginRequestJson,
  LoginResponseJson,
  ValidateTokenResponseJson,
} from '@paygate/gen/auth/v1/auth_pb';
import { normalizeUser, type User } from './access';
import { tokensFrom, type ApiClient } from './api-client';
import { ApiError } from './api-error';
import type { SessionStore } from './session';
import { readTabStored, writeStored, writeTabStored } from './storage';

/** Auth holds the session calls of the auth service. */
export interface Auth {
  /** login signs in with a password, stores the tokens and the last username, and returns the user. */
  login(username: string, password: string): Promise<User>;
  /**
   * logout tells the server and clears the local data even when that call
   * fails. It marks this tab as logged out until the next sign-in
   * (loggedOutByUser), so that the login page does not sign straight back in.
   */
  logout(): Promise<void>;
  /** fetchUser asks the server who the token belongs to and stores that user. */
  fetchUser(): Promise<User>;
}

/**
 * loggedOutByUser: the user logged out in this tab (Logout, or ending its own
 * session) and has not signed in since. The login page then waits for the
 * user instead of attempting a passkey sign-in by itself (issue 25).
 */
export function loggedOutByUser(): boolean {
  return readTabStored('loggedOut') === 'true';
}

/** createAuth binds the auth calls to a client and a session. */
export function createAuth(api: ApiClient, session: SessionStore): Auth {
  return {
    async login(username, password) {
      const body: LoginRequestJson = { username, password };
      const res = await api.post<LoginResponseJson>('auth', '/api/v1/login', body);
      writeStored('lastUsername', username);
      session.signIn(tokensFrom(res));
      const user = session.getState().user;
      if (!user) throw new ApiError(502, 'internal', 'The server answered with an unreadable access token');
      return user;
    },

    async logout() {
      writeTabStored('loggedOut', 'true');
      const token = session.getState().accessToken;
      try {
        if (token) await api.send('auth', '/api/v1/logout', { method: 'POST', body: {} }, token);
      } catch {
        // The local session ends whatever the server says.
      } finally {
        session.clear();
      }
    },

    async fetchUser() {
      const res = await api.get<ValidateTokenResponseJson>('auth', '/api/v1/validate-token');
      if (!res?.user) throw new ApiError(502, 'internal', 'The server answered without a user');
      const user = normalizeUser(res.user);
      session.setUser(user);
      return user;
    },
  };
}
