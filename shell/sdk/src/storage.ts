/**
 * The browser-stored data of the console (spec 01 §3), plus the dashboard's
 * auto-refresh switch (issue 14: an operator's wall screen keeps it on) and
 * the export wizard's column choices per export type (spec 02 §2 "Export
 * dialog", issue 16), and nothing else.
 *
 * This module is the only place that touches localStorage and sessionStorage;
 * every key the console persists is listed here, so the list is reviewable in
 * one glance. sessionStorage (this tab only) holds one mark, SESSION_KEYS.
 */
export const STORAGE_KEYS = {
  accessToken: 'accessToken',
  refreshToken: 'refreshToken',
  lastUsername: 'lastUsername',
  selectedMerchant: 'selectedMerchant',
  darkMode: 'darkMode',
  selectedTimezone: 'selectedTimezone',
  hasPasskey: 'hasPasskey',
  passkeyUsers: 'passkeyUsers',
  skipPasskeySetup: 'skipPasskeySetup',
  dashboardAutoRefresh: 'dashboardAutoRefresh',
  exportColumns: 'exportColumns',
} as const;

/** StorageKey names one of the values the console keeps in the browser. */
export type StorageKey = keyof typeof STORAGE_KEYS;

function store(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    // Access to storage can throw (privacy settings, sandboxed frames).
    return undefined;
  }
}

/** readStored returns the stored value, or null when it is absent or storage is unavailable. */
export function readStored(key: StorageKey): string | null {
  return store()?.getItem(STORAGE_KEYS[key]) ?? null;
}

/** writeStored stores a value; null removes it. */
export function writeStored(key: StorageKey, value: string | null): void {
  const s = store();
  if (!s) return;
  if (value === null) s.removeItem(STORAGE_KEYS[key]);
  else s.setItem(STORAGE_KEYS[key], value);
}

/**
 * The values kept in sessionStorage, for this tab only (issue 25):
 * loggedOut marks an explicit Logout until the next successful sign-in, so
 * that the login page it opens (or a reload of it) does not sign the user
 * straight back in with a passkey.
 */
export const SESSION_KEYS = {
  loggedOut: 'loggedOut',
} as const;

/** SessionKey names one of the values the console keeps for this tab. */
export type SessionKey = keyof typeof SESSION_KEYS;

function tabStore(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}

/** readTabStored returns the value kept for this tab, or null. */
export function readTabStored(key: SessionKey): string | null {
  try {
    return tabStore()?.getItem(SESSION_KEYS[key]) ?? null;
  } catch {
    return null;
  }
}

/** writeTabStored keeps a value for this tab; null removes it. */
export function writeTabStored(key: SessionKey, value: string | null): void {
  const s = tabStore();
  if (!s) return;
  try {
    if (value === null) s.removeItem(SESSION_KEYS[key]);
    else s.setItem(SESSION_KEYS[key], value);
  } catch {
    // A full or refused storage only loses the mark.
  }
}
