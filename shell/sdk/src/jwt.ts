import { normalizeUser, type User } from './access';

/** AccessTokenClaims are the claims of the access token (docs/contracts.md). */
export interface AccessTokenClaims {
  iss?: string;
  aud?: string | string[];
  sub?: string;
  exp?: number;
  iat?: number;
  jti?: string;
  sid?: string;
  username?: string;
  roles?: string[];
  permissions?: string[];
  merchantIds?: number[];
  isTemporaryPassword?: boolean;
  /** The role's scope flag: the user sees every merchant (docs/access.md). */
  globalScope?: boolean;
  /** The token version (docs/contracts.md): 2 and later carry globalScope. */
  ver?: number;
}

/**
 * The roles that saw every merchant before tokens carried the scope flag
 * (token version 2): a token of the previous auth release is read that way
 * (docs/releases.md, N-1), as the services read it (access.Claims.GlobalScope).
 */
const LEGACY_GLOBAL_ROLES = ['Admin', 'Support'];

function globalScopeOf(c: AccessTokenClaims): boolean {
  if ((c.ver ?? 0) >= 2) return c.globalScope ?? false;
  return !!c.globalScope || (c.roles ?? []).some((r) => LEGACY_GLOBAL_ROLES.includes(r));
}

function base64UrlDecode(part: string): string {
  const b64 = part.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(part.length / 4) * 4, '=');
  const binary = atob(b64);
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/**
 * decodeClaims reads a JWT's payload without verifying it: the console only
 * displays and hides by these claims; every service verifies the signature.
 * It returns null for anything that is not a JWT.
 */
export function decodeClaims(token: string): AccessTokenClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return null;
  try {
    const claims: unknown = JSON.parse(base64UrlDecode(parts[1]));
    return claims && typeof claims === 'object' ? (claims as AccessTokenClaims) : null;
  } catch {
    return null;
  }
}

/** userFromToken builds the user from the access token's claims, or null. */
export function userFromToken(token: string): User | null {
  const c = decodeClaims(token);
  if (!c) return null;
  return normalizeUser({
    id: c.sub,
    username: c.username,
    roles: c.roles,
    permissions: c.permissions,
    merchantIds: c.merchantIds,
    isTemporaryPassword: c.isTemporaryPassword,
    globalScope: globalScopeOf(c),
  });
}

/**
 * expiresWithin tells whether the token expires within `marginMs` of `now`.
 * A token without a readable `exp` is taken as not expiring: the server's 401
 * then decides.
 */
export function expiresWithin(token: string, marginMs: number, now: number): boolean {
  const exp = decodeClaims(token)?.exp;
  if (typeof exp !== 'number') return false;
  return exp * 1000 - now <= marginMs;
}
