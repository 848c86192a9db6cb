import { vi, type Mock } from 'vitest';

// A stand-in for the browser's WebAuthn API (jsdom has none): PublicKeyCredential
// with its platform-authenticator check, and navigator.credentials whose get and
// create a test answers. Unanswered, a ceremony waits like a browser prompt left
// open, until its signal aborts it.

/** A public-key credential request or creation as the browser receives it. */
type CeremonyOptions = { signal?: AbortSignal | null; publicKey?: unknown };

/** FakeWebAuthn holds the mocks of a stubbed WebAuthn API. */
export interface FakeWebAuthn {
  /** navigator.credentials.get: the sign-in ceremony. */
  get: Mock<(options: CeremonyOptions) => Promise<unknown>>;
  /** navigator.credentials.create: the registration ceremony. */
  create: Mock<(options: CeremonyOptions) => Promise<unknown>>;
  /** PublicKeyCredential.isUserVerifyingPlatformAuthenticatorAvailable. */
  platform: Mock<() => Promise<boolean>>;
}

const bytes = (text: string): ArrayBuffer => new TextEncoder().encode(text).buffer as ArrayBuffer;

/** waitForAbort is a prompt the user never answers: it settles only when the ceremony is aborted. */
function waitForAbort(options: CeremonyOptions): Promise<unknown> {
  return new Promise((_resolve, reject) => {
    const signal = options.signal;
    if (!signal) return;
    const abort = () => reject(signal.reason ?? new DOMException('The operation was aborted.', 'AbortError'));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}

/**
 * stubWebAuthn installs a WebAuthn API that supports passkeys; `platform` is
 * the answer of the platform-authenticator check. Undo it with unstubWebAuthn.
 */
export function stubWebAuthn({ platform = true }: { platform?: boolean } = {}): FakeWebAuthn {
  const fake: FakeWebAuthn = {
    get: vi.fn(waitForAbort),
    create: vi.fn(waitForAbort),
    platform: vi.fn(async () => platform),
  };
  class FakePublicKeyCredential {
    static isUserVerifyingPlatformAuthenticatorAvailable = () => fake.platform();
  }
  Object.defineProperty(globalThis, 'PublicKeyCredential', { configurable: true, writable: true, value: FakePublicKeyCredential });
  Object.defineProperty(navigator, 'credentials', {
    configurable: true,
    value: { get: (o: CeremonyOptions) => fake.get(o), create: (o: CeremonyOptions) => fake.create(o) },
  });
  return fake;
}

/** unstubWebAuthn removes what stubWebAuthn installed, leaving jsdom without WebAuthn again. */
export function unstubWebAuthn(): void {
  delete (globalThis as { PublicKeyCredential?: unknown }).PublicKeyCredential;
  delete (navigator as { credentials?: unknown }).credentials;
}

/** assertion is what navigator.credentials.get resolves with for a passkey sign-in. */
export function assertion(id = 'cred-1') {
  return {
    id,
    rawId: bytes(id),
    type: 'public-key',
    authenticatorAttachment: 'platform',
    response: {
      authenticatorData: bytes('authenticator-data'),
      clientDataJSON: bytes('{"type":"webauthn.get"}'),
      signature: bytes('signature'),
      userHandle: bytes('user-7'),
    },
    getClientExtensionResults: () => ({}),
  };
}

/** attestation is what navigator.credentials.create resolves with for a new passkey. */
export function attestation(id = 'cred-new') {
  return {
    id,
    rawId: bytes(id),
    type: 'public-key',
    authenticatorAttachment: 'platform',
    response: {
      attestationObject: bytes('attestation-object'),
      clientDataJSON: bytes('{"type":"webauthn.create"}'),
      getTransports: () => ['internal'],
    },
    getClientExtensionResults: () => ({}),
  };
}

/** browserError is a rejection of the browser's ceremony (NotAllowedError, InvalidStateError, ...). */
export function browserError(name: string, message = `The operation failed (${name}).`): DOMException {
  return new DOMException(message, name);
}

/** AUTHENTICATION_OPTIONS answers POST /api/v1/webauthn/authenticate/options. */
export const AUTHENTICATION_OPTIONS = {
  publicKey: { challenge: 'c2lnbi1pbi1jaGFsbGVuZ2U', rpId: 'localhost', timeout: 60000, userVerification: 'preferred', allowCredentials: [] },
};

/** REGISTRATION_OPTIONS answers POST /api/v1/webauthn/register/options. */
export const REGISTRATION_OPTIONS = {
  publicKey: {
    challenge: 'cmVnaXN0ZXItY2hhbGxlbmdl',
    rp: { name: 'Paygate', id: 'localhost' },
    user: { id: 'dXNlci03', name: 'admin', displayName: 'admin' },
    pubKeyCredParams: [
      { type: 'public-key', alg: -8 },
      { type: 'public-key', alg: -7 },
    ],
    timeout: 60000,
    attestation: 'none',
    excludeCredentials: [],
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  },
};
