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

/**
 * The maintenance toggle's errors (spec 01 §8 "Maintenance"). A change the server refuses (401 or
 * 403) says the permission text of its direction; another failure says the server's message, or
 * the fallback of its direction.
 */
export function enableMaintenanceError(err: unknown): string {
  return deniedOr(err, "You don't have permission to enable maintenance mode.", 'Failed to enable maintenance mode');
}

/** disableMaintenanceError: see enableMaintenanceError. */
export function disableMaintenanceError(err: unknown): string {
  return deniedOr(err, "You don't have permission to disable maintenance mode.", 'Failed to disable maintenance mode');
}

/**
 * toggleMaintenanceError is the error of a toggle whose direction is unknown: the page could not
 * read whether maintenance mode is on, so it changed nothing. No permission text names a
 * direction here, whatever the status: the server's message, or 'Failed to toggle maintenance
 * mode'.
 */
export function toggleMaintenanceError(err: unknown): string {
  return errorMessage(err, 'Failed to toggle maintenance mode');
}
