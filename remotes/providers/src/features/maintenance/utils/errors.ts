import { errorMessage } from '@paygate/sdk';
import { deniedOr } from '../../../utils/errors';

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
