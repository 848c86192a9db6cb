/** ApiError is how every failed console call surfaces: the HTTP status and the server's `{code, message}`. */
export class ApiError extends Error {
  /** HTTP status; 0 when the request never got an answer (network failure). */
  readonly status: number;
  /** Error kind from the server (`invalid`, `unauthenticated`, …), or `network` / `unknown`. */
  readonly code: string;
  /** Seconds from a `Retry-After` header (429), when the server sent one. */
  readonly retryAfter: number | undefined;
  /** The user cancelled the confirmation of a sensitive call: nothing to tell them. */
  cancelled = false;
  /** The id of the approval request a sensitive call became (the change waits for approval). */
  approvalRequested: string | undefined = undefined;

  constructor(status: number, code: string, message: string, retryAfter?: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }

  /** cancelledError: the user closed the confirmation dialog. */
  static cancelledError(): ApiError {
    const err = new ApiError(428, 'cancelled', '');
    err.cancelled = true;
    return err;
  }

  /** approvalError: the change was sent for approval as request `id`. */
  static approvalError(id: string): ApiError {
    const err = new ApiError(202, 'approval_requested', 'Sent for approval: the change is applied once another user approves it.');
    err.approvalRequested = id;
    return err;
  }

  /**
   * fromResponse reads the `{code, message}` body of a failed response. The
   * message stays empty when the server sent none, so callers can show their
   * own fallback ('Failed to login', …).
   */
  static async fromResponse(res: Response): Promise<ApiError> {
    let code = 'unknown';
    let message = '';
    try {
      const body: unknown = await res.json();
      if (body && typeof body === 'object') {
        const b = body as Record<string, unknown>;
        if (typeof b.code === 'string') code = b.code;
        if (typeof b.message === 'string') message = b.message;
      }
    } catch {
      // Not JSON: keep the defaults.
    }
    const header = res.headers.get('Retry-After');
    const seconds = header === null ? NaN : Number(header);
    return new ApiError(res.status, code, message, Number.isFinite(seconds) ? seconds : undefined);
  }
}

/** isApiError narrows an unknown thrown value. */
export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}

/**
 * errorMessage picks the message to show for an error, or the fallback when it
 * has none; '' for a cancelled confirmation (the notify helpers show nothing
 * for an empty title).
 */
export function errorMessage(err: unknown, fallback: string): string {
  // A cancelled confirmation, and a change sent for approval (the
  // confirmation dialog says so itself), are no failures: notify shows no
  // error toast for '' (as title or as description).
  if (err instanceof ApiError && (err.cancelled || err.approvalRequested)) return '';
  if (err instanceof Error && err.message) return err.message;
  return fallback;
}
