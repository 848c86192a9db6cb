import type { RefreshTokenRequestJson, RefreshTokenResponseJson } from '@paygate/gen/auth/v1/auth_pb';
import { ApiError } from './api-error';
import { CONFIRMATION_HEADER, challengeFrom, confirmationHandler } from './confirmation';
import { getConfig, serviceUrl, type RuntimeConfig, type Service } from './config';
import { expiresWithin } from './jwt';
import type { SessionStore, TokenPair } from './session';

/** Refresh the access token when it expires within this margin (spec 01 §9). */
export const TOKEN_EXPIRY_MARGIN_MS = 30_000;

const REFRESH_PATH = '/api/v1/refresh-token';

/**
 * isExemptPath: login, refresh-token and passkey sign-in calls get no refresh
 * handling (spec 01 §4). The passkey calls of a signed-in user (register,
 * list, remove) are ordinary authenticated calls: they refresh like any other,
 * or the Passkeys tab would fail once the access token is five minutes old.
 */
export function isExemptPath(path: string): boolean {
  const p = path.split('?', 1)[0] ?? '';
  return isSignInPath(p) || p === REFRESH_PATH || p.startsWith('/api/v1/webauthn/authenticate/');
}

/**
 * isSignInPath: the password sign-in and its second step (a code, or the
 * enrolment of a second factor), which carry the device cookie.
 */
function isSignInPath(p: string): boolean {
  return p === '/api/v1/login' || p.startsWith('/api/v1/login/second-factor');
}

/** RequestOptions describe one call. */
export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Sent as JSON. */
  body?: unknown;
  /** Appended as a query string; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
  signal?: AbortSignal;
  /** Extra request headers (the confirmation token of a repeated sensitive call). */
  headers?: Record<string, string>;
}

/** Download is a file a call answered. */
export interface Download {
  blob: Blob;
  /** The Content-Type header (or the blob's type). */
  contentType: string;
  /** The file name of Content-Disposition, or null when the server sent none. */
  filename: string | null;
}

/**
 * filenameFromDisposition reads the file name of a Content-Disposition
 * header: the RFC 5987 `filename*=UTF-8''…` form first, then `filename=…`
 * (quoted or not). Path separators are dropped, so a name can never point
 * outside the downloads folder.
 */
export function filenameFromDisposition(header: string | null): string | null {
  if (!header) return null;
  const clean = (name: string) => name.replace(/[/\\]/g, '_').trim() || null;
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(header);
  if (extended?.[2]) {
    try {
      return clean(decodeURIComponent(extended[2].trim().replace(/^"|"$/g, '')));
    } catch {
      // A malformed escape: fall back to the plain form.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(header);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  return name ? clean(name) : null;
}

/** ApiClientOptions wire a client; tests pass their own clock and config. */
export interface ApiClientOptions {
  session: SessionStore;
  config?: () => RuntimeConfig;
  now?: () => number;
}

/** tokensFrom checks a token-pair answer. */
export function tokensFrom(body: RefreshTokenResponseJson | undefined): TokenPair {
  if (!body?.accessToken || !body.refreshToken) {
    throw new ApiError(502, 'internal', 'The server answered without tokens');
  }
  return { accessToken: body.accessToken, refreshToken: body.refreshToken };
}

/**
 * ApiClient calls the Paygate services with the session's bearer token and
 * implements the token refresh of spec 01 §4: a refresh before a call whose
 * token expires within 30 s, one refresh in flight that concurrent calls wait
 * for, one retry after a refresh on 401, and the end of the session when no
 * refresh is possible.
 */
export class ApiClient {
  private readonly session: SessionStore;
  private readonly config: () => RuntimeConfig;
  private readonly now: () => number;
  private refreshing: Promise<void> | null = null;

  constructor(opts: ApiClientOptions) {
    this.session = opts.session;
    this.config = opts.config ?? getConfig;
    this.now = opts.now ?? Date.now;
  }

  /** url builds the absolute URL of a call. */
  url(service: Service, path: string, query?: RequestOptions['query']): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) qs.set(k, String(v));
    const q = qs.toString();
    return `${serviceUrl(service, this.config())}${path}${q ? `?${q}` : ''}`;
  }

  /** send performs one HTTP exchange with the given bearer token and no refresh handling. */
  async send(service: Service, path: string, opts: RequestOptions, token: string | null): Promise<Response> {
    const headers: Record<string, string> = { ...opts.headers, Accept: 'application/json' };
    if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
    if (token) headers.Authorization = `Bearer ${token}`;
    try {
      return await fetch(this.url(service, path, opts.query), {
        method: opts.method ?? (opts.body === undefined ? 'GET' : 'POST'),
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        // The sign-in carries the auth service's device cookie (an HttpOnly
        // cookie scoped to the sign-in routes); no other call sends cookies.
        credentials: isSignInPath(path.split('?', 1)[0] ?? '') ? 'include' : 'same-origin',
        signal: opts.signal,
      });
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') throw err;
      throw new ApiError(0, 'network', 'Network error: the server could not be reached');
    }
  }

  /**
   * respond performs a call with the token refresh handling and returns its
   * successful response; a failed one throws an ApiError.
   */
  private async respond(service: Service, path: string, opts: RequestOptions): Promise<Response> {
    const exempt = isExemptPath(path);
    if (!exempt) await this.ensureFresh();

    let token = this.session.getState().accessToken;
    let res = await this.send(service, path, opts, token);
    if (res.status === 401 && !exempt) {
      // Another call may have refreshed while this one was in flight: then
      // the retry uses that token instead of refreshing again.
      if (this.session.getState().accessToken === token) await this.refresh();
      token = this.session.getState().accessToken;
      res = await this.send(service, path, opts, token);
    }
    if (res.status === 428) res = await this.confirm(service, path, opts, res);
    if (!res.ok) throw await ApiError.fromResponse(res);
    return res;
  }

  /**
   * confirm handles a 428 `confirmation_required` answer (issue 28): the
   * registered confirmation handler runs the ceremony; on a token the
   * identical call is repeated once with the X-Paygate-Confirmation header,
   * on an approval request or a cancel the call fails with an ApiError
   * flagged `approvalRequested` or `cancelled`. Without a handler, or for
   * another 428, the answer stays as it is.
   */
  private async confirm(service: Service, path: string, opts: RequestOptions, res: Response): Promise<Response> {
    const handler = confirmationHandler();
    if (!handler || opts.headers?.[CONFIRMATION_HEADER]) return res;
    let body: unknown;
    try {
      body = await res.clone().json();
    } catch {
      return res;
    }
    const challenge = challengeFrom(body);
    if (!challenge) return res;
    const outcome = await handler(challenge);
    if (outcome === null) throw ApiError.cancelledError();
    if (typeof outcome !== 'string') throw ApiError.approvalError(outcome.approvalRequested);
    const retry = { ...opts, headers: { ...opts.headers, [CONFIRMATION_HEADER]: outcome } };
    return this.send(service, path, retry, this.session.getState().accessToken);
  }

  /** request performs a call and returns its JSON answer (undefined for an empty body). */
  async request<T>(service: Service, path: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.respond(service, path, opts);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /**
   * download performs a GET whose answer is a file (an export's bytes): the
   * bearer token is sent as with any call, so a plain link cannot do this.
   * The file name comes from Content-Disposition when the server sends one.
   */
  async download(service: Service, path: string, opts: Omit<RequestOptions, 'method' | 'body'> = {}): Promise<Download> {
    const res = await this.respond(service, path, { ...opts, method: 'GET' });
    const blob = await res.blob();
    return {
      blob,
      contentType: res.headers.get('Content-Type') ?? blob.type,
      filename: filenameFromDisposition(res.headers.get('Content-Disposition')),
    };
  }

  get<T>(service: Service, path: string, opts: Omit<RequestOptions, 'method' | 'body'> = {}): Promise<T> {
    return this.request<T>(service, path, { ...opts, method: 'GET' });
  }

  post<T>(service: Service, path: string, body?: unknown, opts: Omit<RequestOptions, 'method' | 'body'> = {}): Promise<T> {
    return this.request<T>(service, path, { ...opts, method: 'POST', body });
  }

  private async ensureFresh(): Promise<void> {
    if (this.refreshing) return this.refreshing;
    const { accessToken, refreshToken } = this.session.getState();
    if (accessToken && refreshToken && expiresWithin(accessToken, TOKEN_EXPIRY_MARGIN_MS, this.now())) {
      await this.refresh();
    }
  }

  /**
   * refresh replaces the token pair; at most one runs at a time and every
   * caller shares its outcome. When no refresh token exists or the refresh
   * fails, the session expires (logout, route remembered, /login) and the
   * returned promise rejects with an ApiError.
   */
  refresh(): Promise<void> {
    this.refreshing ??= this.runRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async runRefresh(): Promise<void> {
    const refreshToken = this.session.getState().refreshToken;
    if (!refreshToken) {
      this.session.expire();
      throw new ApiError(401, 'unauthenticated', 'Your session has expired. Please log in again.');
    }
    try {
      const body: RefreshTokenRequestJson = { refreshToken };
      const res = await this.send('auth', REFRESH_PATH, { method: 'POST', body }, null);
      if (!res.ok) throw await ApiError.fromResponse(res);
      this.session.signIn(tokensFrom((await res.json()) as RefreshTokenResponseJson));
    } catch (err) {
      this.session.expire();
      throw err;
    }
  }
}
