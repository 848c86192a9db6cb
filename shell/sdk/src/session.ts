import type { User } from './access';
import { userFromToken } from './jwt';
import { readStored, writeStored, writeTabStored } from './storage';

/** TokenPair is what login, refresh and password change answer with. */
export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

/** SessionState is the auth state of spec 01 §3. */
export interface SessionState {
  accessToken: string | null;
  refreshToken: string | null;
  user: User | null;
}

/** Navigation lets the session send the browser to /login without knowing the router. */
export interface Navigation {
  /** The current route: path, query and hash. */
  current(): string;
  /** Go to a route inside the console. */
  go(to: string): void;
}

const browserNavigation: Navigation = {
  current: () => `${window.location.pathname}${window.location.search}${window.location.hash}`,
  go: (to) => window.location.assign(to),
};

/** Routes never remembered as the place to return to after login. */
const NOT_REMEMBERED = new Set(['/', '/login']);

/**
 * SessionStore keeps the tokens (in localStorage), the signed-in user and the
 * redirect target after login (in memory only: it is not among the stored data
 * of spec 01 §3). Components read it through `useSession`.
 */
export class SessionStore {
  private state: SessionState;
  private readonly listeners = new Set<() => void>();
  private redirect: string | null = null;
  private navigation: Navigation = browserNavigation;

  constructor() {
    this.state = {
      accessToken: readStored('accessToken'),
      refreshToken: readStored('refreshToken'),
      user: null,
    };
  }

  /** getState returns the current state; a new object after every change. */
  getState = (): SessionState => this.state;

  /** subscribe registers a change listener and returns its remover. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private set(next: Partial<SessionState>): void {
    this.state = { ...this.state, ...next };
    this.listeners.forEach((l) => l());
  }

  /** signIn stores a new token pair and takes the user from the access token's claims. */
  signIn(tokens: TokenPair): void {
    // A sign-in ends the effect of an earlier Logout (see auth.logout).
    writeTabStored('loggedOut', null);
    writeStored('accessToken', tokens.accessToken);
    writeStored('refreshToken', tokens.refreshToken);
    this.set({ ...tokens, user: userFromToken(tokens.accessToken) });
  }

  /** setUser replaces the user (e.g. with the server's view from validate-token). */
  setUser(user: User | null): void {
    this.set({ user });
  }

  /** clear drops the tokens and the user: the local data of a session. */
  clear(): void {
    writeStored('accessToken', null);
    writeStored('refreshToken', null);
    this.set({ accessToken: null, refreshToken: null, user: null });
  }

  /** rememberRedirect keeps a route to return to after login, unless it is / or /login. */
  rememberRedirect(route: string): void {
    const path = route.split(/[?#]/, 1)[0] ?? '';
    if (!NOT_REMEMBERED.has(path)) this.redirect = route;
  }

  /** takeRedirect returns the remembered route once, then forgets it. */
  takeRedirect(): string | null {
    const r = this.redirect;
    this.redirect = null;
    return r;
  }

  /** bindNavigation lets the shell route the session's redirects through its router. */
  bindNavigation(navigation: Navigation): void {
    this.navigation = navigation;
  }

  /**
   * currentRoute is the route the console is at now (path, query and hash),
   * as the router bound with bindNavigation has it: ahead of the render while
   * a navigation renders in a transition, so a handler reading it sees the
   * URL its own render may not show yet.
   */
  currentRoute(): string {
    return this.navigation.current();
  }

  /**
   * expire ends a session the server no longer accepts: it clears the local
   * data, remembers the current route and goes to /login.
   */
  expire(): void {
    const route = this.navigation.current();
    // A call refused after the session ended here (a Logout, whose
    // revocation answers the calls still under way with 401) keeps the route
    // the Logout left from (the route guard remembered it) instead of
    // replacing it with wherever the console is by then.
    const ended = !this.state.accessToken && !this.state.refreshToken;
    this.clear();
    if (!ended) this.rememberRedirect(route);
    if ((route.split(/[?#]/, 1)[0] ?? '') !== '/login') this.navigation.go('/login');
  }
}
