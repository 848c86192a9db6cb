import type {
  BeginPasskeyLoginResponseJson,
  BeginPasskeyRegistrationResponseJson,
  FinishPasskeyLoginResponseJson,
  FinishPasskeyRegistrationResponseJson,
  PasskeyJson,
} from '@paygate/gen/auth/v1/webauthn_pb';
import type { User } from './access';
import { ApiError } from './api-error';
import { api, session } from './console';
import { readStored, writeStored } from './storage';

// Passkeys (WebAuthn) for the login page, the setup dialog and the Passkeys
// tab (spec 01 §2, §4, §8; spec 02 "Account Security"). The browser half of
// the ceremony is @simplewebauthn/browser, loaded only when a ceremony runs so
// that the login page does not pay for it up front.

/** SKIP_PASSKEY_SETUP_MS: 'Not Now' hides the setup prompt for one day (spec 01 §9). */
export const SKIP_PASSKEY_SETUP_MS = 24 * 60 * 60 * 1000;

/** PasskeyError is a failed ceremony with the sentence the console shows for it. */
export class PasskeyError extends Error {
  /** name of the browser's error (NotAllowedError, InvalidStateError, ...), or 'ServerError'. */
  readonly reason: string;
  constructor(message: string, reason: string) {
    super(message);
    this.name = 'PasskeyError';
    this.reason = reason;
  }
}

/** passkeysSupported: the browser has WebAuthn at all. */
export function passkeysSupported(): boolean {
  return typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function' && !!navigator.credentials;
}

/** platformAuthenticatorAvailable: the device has a built-in authenticator (Touch ID, Windows Hello...). */
export async function platformAuthenticatorAvailable(): Promise<boolean> {
  if (!passkeysSupported()) return false;
  try {
    return await PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable();
  } catch {
    return false;
  }
}

function publicKeyOf(res: { publicKey?: unknown } | undefined): never {
  // The standard creation/request options, wrapped in publicKey (our
  // server) or bare (another reading of "standard WebAuthn options").
  const r = res as Record<string, unknown> | undefined;
  const options = r && typeof r.publicKey === 'object' && r.publicKey !== null ? r.publicKey : r;
  if (!options || typeof options !== 'object' || typeof (options as { challenge?: unknown }).challenge !== 'string') {
    throw new PasskeyError('The server answered without passkey options', 'ServerError');
  }
  return options as never;
}

function errorName(err: unknown): string {
  // The browser rejects with a DOMException, which is not an Error in every
  // runtime; @simplewebauthn/browser passes some of them through unwrapped.
  return textOf(err, 'name');
}

function textOf(err: unknown, field: 'name' | 'message'): string {
  const value = typeof err === 'object' && err !== null ? (err as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * registrationErrorMessage maps a failed registration to the texts of spec 01 §8 (the setup
 * dialog). The Account Security page words a cancelled creation as spec 02 §8 does
 * (remotes/security passkey-texts.ts).
 */
export function registrationErrorMessage(err: unknown): string {
  switch (errorName(err)) {
    case 'NotAllowedError':
      return 'Passkey registration was cancelled or not allowed';
    case 'InvalidStateError':
      return 'A passkey already exists for this device';
    case 'NotSupportedError':
      return 'Your device does not support passkeys';
  }
  return textOf(err, 'message') || 'Failed to create passkey. Please try again.';
}

/** loginErrorMessage maps a failed passkey sign-in to the texts of spec 01 §8. */
export function loginErrorMessage(err: unknown): string {
  switch (errorName(err)) {
    case 'NotAllowedError':
      return 'Passkey authentication was cancelled or not allowed';
    case 'InvalidStateError':
      return 'No passkeys found for this account';
  }
  if (err instanceof ApiError && err.status === 401) return 'Invalid passkey or authentication failed';
  return textOf(err, 'message') || 'Failed to authenticate with passkey';
}

/** passkeyUsers returns the usernames this browser knows to have a passkey. */
export function passkeyUsers(): string[] {
  try {
    const v = JSON.parse(readStored('passkeyUsers') ?? '[]') as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** hasPasskeyHint: the browser remembers a passkey for username (compared without case). */
export function hasPasskeyHint(username: string): boolean {
  const u = username.trim().toLowerCase();
  return !!u && passkeyUsers().some((x) => x.toLowerCase() === u);
}

/** rememberPasskey records (or, with false, forgets) that username has a passkey. */
export function rememberPasskey(username: string, has = true): void {
  const u = username.trim();
  if (!u) return;
  const others = passkeyUsers().filter((x) => x.toLowerCase() !== u.toLowerCase());
  const next = has ? [...others, u] : others;
  writeStored('passkeyUsers', next.length ? JSON.stringify(next) : null);
  writeStored('hasPasskey', next.length ? 'true' : null);
}

/** skipPasskeySetup hides the setup prompt until one day after now. */
export function skipPasskeySetup(now = Date.now()): void {
  writeStored('skipPasskeySetup', new Date(now + SKIP_PASSKEY_SETUP_MS).toISOString());
}

/** passkeySetupSkipped: 'Not Now' was chosen less than a day before now. */
export function passkeySetupSkipped(now = Date.now()): boolean {
  const until = Date.parse(readStored('skipPasskeySetup') ?? '');
  return Number.isFinite(until) && now < until;
}

// The password sign-in that may be followed by the setup prompt (spec 01 §2
// "Passkey setup dialog": 2 seconds after login). Kept in memory only, in the
// SDK singleton: a page reload of the same session forgets it, so the prompt
// follows the sign-in itself and never a later page load, and it adds nothing
// to the browser-stored data of spec 01 §3.
let passwordSignIn: string | null = null;

/** notePasswordSignIn records that username has just signed in with a password (the login page calls it). */
export function notePasswordSignIn(username: string): void {
  passwordSignIn = username;
}

/** justSignedInWithPassword: username's password sign-in is noted and not yet taken. */
export function justSignedInWithPassword(username: string): boolean {
  return passwordSignIn !== null && passwordSignIn === username;
}

/** takePasswordSignIn returns justSignedInWithPassword(username) and forgets the sign-in. */
export function takePasswordSignIn(username: string): boolean {
  const noted = justSignedInWithPassword(username);
  passwordSignIn = null;
  return noted;
}

/** listPasskeys returns the signed-in user's passkeys. */
export async function listPasskeys(signal?: AbortSignal): Promise<PasskeyJson[]> {
  const res = await api.get<PasskeyJson[] | { passkeys?: PasskeyJson[] }>('auth', '/api/v1/webauthn/credentials', { signal });
  return Array.isArray(res) ? res : (res?.passkeys ?? []);
}

/** deletePasskey removes one of the signed-in user's passkeys. */
export async function deletePasskey(id: string | number): Promise<void> {
  await api.request('auth', `/api/v1/webauthn/credentials/${encodeURIComponent(String(id))}`, { method: 'DELETE' });
}

/**
 * registerPasskey runs a registration ceremony for the signed-in user: the
 * server's options, the browser's authenticator, then the server's check.
 * It throws the browser's error (see registrationErrorMessage) or a
 * PasskeyError carrying the server's message.
 */
export async function registerPasskey(displayName: string): Promise<PasskeyJson | undefined> {
  const { startRegistration } = await import('@simplewebauthn/browser');
  const options = await api.post<BeginPasskeyRegistrationResponseJson>('auth', '/api/v1/webauthn/register/options', {
    displayName: displayName.trim(),
  });
  const credential = await startRegistration({ optionsJSON: publicKeyOf(options) });
  const res = await api.post<FinishPasskeyRegistrationResponseJson>('auth', '/api/v1/webauthn/register/complete', credential);
  // A false success may be left out of the JSON (a proto3 default), so only
  // an explicit true counts as stored.
  if (!res?.success) throw new PasskeyError(res?.errorMessage || 'Registration failed', 'ServerError');
  const username = session.getState().user?.username;
  if (username) rememberPasskey(username);
  return res?.passkey ?? undefined;
}

/**
 * signInWithPasskey runs a sign-in ceremony (discoverable credentials), stores
 * the tokens and returns the user. It throws the browser's error or an
 * ApiError (see loginErrorMessage).
 *
 * Aborting signal cancels the calls and the browser's prompt, and guarantees
 * that the session is left as it is: an attempt overtaken by a password
 * sign-in never replaces that session's tokens. It then rejects with the
 * signal's reason (an AbortError).
 */
export async function signInWithPasskey(username: string, signal?: AbortSignal): Promise<User> {
  const { startAuthentication, WebAuthnAbortService } = await import('@simplewebauthn/browser');
  signal?.throwIfAborted();
  const options = await api.post<BeginPasskeyLoginResponseJson>(
    'auth',
    '/api/v1/webauthn/authenticate/options',
    { username: username.trim() },
    { signal },
  );
  signal?.throwIfAborted();
  const cancelPrompt = () => WebAuthnAbortService.cancelCeremony();
  signal?.addEventListener('abort', cancelPrompt, { once: true });
  let assertion;
  try {
    assertion = await startAuthentication({ optionsJSON: publicKeyOf(options) });
  } finally {
    signal?.removeEventListener('abort', cancelPrompt);
  }
  signal?.throwIfAborted();
  const res = await api.post<FinishPasskeyLoginResponseJson>('auth', '/api/v1/webauthn/authenticate/complete', assertion, { signal });
  signal?.throwIfAborted();
  const tokens = res?.tokenResponse;
  if (!res?.success || !tokens?.accessToken || !tokens.refreshToken) {
    throw new PasskeyError(res?.errorMessage || 'Authentication failed', 'ServerError');
  }
  // A passkey sign-in is not followed by the setup prompt.
  passwordSignIn = null;
  session.signIn({ accessToken: tokens.accessToken, refreshToken: tokens.refreshToken });
  const user = session.getState().user;
  if (!user) throw new ApiError(502, 'internal', 'The server answered with an unreadable access token');
  writeStored('lastUsername', user.username);
  rememberPasskey(user.username);
  return user;
}

/**
 * assertPasskey asks the browser for an assertion of one of the user's
 * passkeys on sign-in options, without signing in: the proof a call such as
 * disabling the second factor takes (its passkeyCredential).
 */
export async function assertPasskey(username: string): Promise<Record<string, unknown>> {
  const { startAuthentication } = await import('@simplewebauthn/browser');
  const options = await api.post<BeginPasskeyLoginResponseJson>('auth', '/api/v1/webauthn/authenticate/options', {
    username: username.trim(),
  });
  const assertion = await startAuthentication({ optionsJSON: publicKeyOf(options) });
  return assertion as unknown as Record<string, unknown>;
}
