/**
 * The texts of the Account Security Passkeys tab, exactly as spec 02 words them ("Account
 * Security", §8 "Passkeys"). Spec 01 §8 words a cancelled registration differently ("Passkey
 * registration was cancelled or not allowed"): that one belongs to the setup dialog of spec 01,
 * these to this page.
 */
export const PASSKEY_TEXTS = {
  unsupported: "Your browser or device doesn't support passkeys.",
  loadFailed: 'Failed to load passkeys. Please try again.',
  removeFailed: 'Failed to remove passkey. Please try again.',
  creationNotAllowed: 'Passkey creation was cancelled or not allowed',
  alreadyExists: 'A passkey already exists for this device',
  deviceUnsupported: 'Your device does not support passkeys',
  createFailed: 'Failed to create passkey. Please try again.',
} as const;

function textOf(err: unknown, field: 'name' | 'message'): string {
  // The browser rejects with a DOMException, not an Error in every runtime.
  const value = typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * creationErrorMessage words a failed passkey creation on this page: the browser's refusals in
 * spec 02's words; anything else by its message (the server's refusal), else createFailed.
 */
export function creationErrorMessage(err: unknown): string {
  switch (textOf(err, 'name')) {
    case 'NotAllowedError':
      return PASSKEY_TEXTS.creationNotAllowed;
    case 'InvalidStateError':
      return PASSKEY_TEXTS.alreadyExists;
    case 'NotSupportedError':
      return PASSKEY_TEXTS.deviceUnsupported;
  }
  return textOf(err, 'message') || PASSKEY_TEXTS.createFailed;
}
