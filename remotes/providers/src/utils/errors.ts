import { errorMessage, isApiError } from '@paygate/sdk';

/** isDenied: the server refused the caller (401 or 403). */
export function isDenied(err: unknown): boolean {
  return isApiError(err) && (err.status === 401 || err.status === 403);
}

/**
 * deniedOr returns the permission text for a 401/403, otherwise the error's
 * message, or the fallback when it has none (spec 01 §8).
 */
export function deniedOr(err: unknown, denied: string, fallback: string): string {
  return isDenied(err) ? denied : errorMessage(err, fallback);
}

/** messageOf is the error's message for '…: {message}' texts, or a generic one. */
export function messageOf(err: unknown): string {
  return errorMessage(err, 'Unknown error');
}
