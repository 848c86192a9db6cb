// What the sign-in page knows before the SDK loads (issue 31: /login carries
// no Chakra UI, and the SDK, shared whole, imports it). These read the same
// browser-stored values as the SDK's readStored('lastUsername'),
// hasPasskeyHint, passkeysSupported and loggedOutByUser (the keys of
// shell/sdk/src/storage.ts); signed-out.test.ts holds them to the SDK's
// answers. Everything that signs in goes through the SDK, loaded by loadSdk.

import type * as SdkModule from '@paygate/sdk';

type Sdk = typeof SdkModule;

function stored(key: string): string | null {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** lastUsername is the username of the last sign-in in this browser, or ''. */
export function lastUsername(): string {
  return stored('lastUsername') ?? '';
}

/** passkeyHint: this browser remembers a passkey for username (compared without case). */
export function passkeyHint(username: string): boolean {
  const u = username.trim().toLowerCase();
  if (!u) return false;
  try {
    const v = JSON.parse(stored('passkeyUsers') ?? '[]') as unknown;
    return Array.isArray(v) && v.some((x) => typeof x === 'string' && x.toLowerCase() === u);
  } catch {
    return false;
  }
}

/** canUsePasskeys: the browser has WebAuthn. */
export function canUsePasskeys(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;
}

/** loggedOutInThisTab: the user logged out in this tab and has not signed in since. */
export function loggedOutInThisTab(): boolean {
  try {
    return globalThis.sessionStorage?.getItem('loggedOut') === 'true';
  } catch {
    return false;
  }
}

let loading: Promise<Sdk> | null = null;

/**
 * loadSdk loads the SDK (and with it Chakra UI, which the signed-in console
 * needs anyway) and the runtime config its API client reads. The sign-in
 * page calls it as soon as the user starts typing, so the download overlaps
 * the typing; a failure is forgotten so that the next call tries again.
 */
export function loadSdk(): Promise<Sdk> {
  loading ??= import('@paygate/sdk').then(async (sdk) => {
    try {
      sdk.getConfig();
    } catch {
      await sdk.loadConfig();
    }
    return sdk;
  });
  loading.catch(() => {
    loading = null;
  });
  return loading;
}
