import { describe, expect, it } from 'vitest';
import { userFromToken } from './jwt';

function token(claims: Record<string, unknown>): string {
  const part = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${part({ alg: 'EdDSA' })}.${part({ sub: '1', username: 'u', permissions: [], merchantIds: [], ...claims })}.sig`;
}

describe('userFromToken: the scope flag', () => {
  it('reads a version 2 token by its flag only', () => {
    expect(userFromToken(token({ ver: 2, roles: ['Desk'], globalScope: true }))?.globalScope).toBe(true);
    expect(userFromToken(token({ ver: 2, roles: ['Admin'], globalScope: false }))?.globalScope).toBe(false);
  });
  it("reads an older auth's token as its built-in roles meant it", () => {
    expect(userFromToken(token({ ver: 1, roles: ['Admin'] }))?.globalScope).toBe(true);
    expect(userFromToken(token({ roles: ['Support'] }))?.globalScope).toBe(true);
    expect(userFromToken(token({ ver: 1, roles: ['Merchant Admin'] }))?.globalScope).toBe(false);
  });
});
