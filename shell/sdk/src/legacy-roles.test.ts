import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAdmin, isMerchant } from './legacy-roles';
import type { User } from './access';

const ROOT = join(__dirname, '../../..');
const LEGACY = /\b(isAdmin|isMerchant|hasRole|hasAnyRole|DASHBOARD_ROLES|MERCHANT_ROLES)\b/;

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.tsx?$/.test(name) && !name.startsWith('legacy-roles')) out.push(path);
  }
  return out;
}

const user = (u: Partial<User>): User => ({ id: '1', username: 'u', roles: [], permissions: [], merchantIds: [], isTemporaryPassword: false, globalScope: false, ...u }) as User;

describe('the legacy role names', () => {
  it('are used by no file of the workspace (they exist for remotes of the previous release)', () => {
    const files = [join(ROOT, 'shell/src'), join(ROOT, 'shell/sdk/src'), ...readdirSync(join(ROOT, 'remotes')).map((r) => join(ROOT, 'remotes', r, 'src'))].flatMap((d) => sources(d));
    const users = files.filter((f) => LEGACY.test(readFileSync(f, 'utf8'))).map((f) => relative(ROOT, f));
    expect(users).toEqual([]);
  });

  it('answer by scope and permissions, not by the role name', () => {
    expect(isAdmin(user({ roles: ['Admin'], globalScope: false, permissions: ['Edit Collab'] }))).toBe(false);
    expect(isAdmin(user({ roles: ['Desk'], globalScope: true, permissions: ['Edit Collab'] }))).toBe(true);
    expect(isMerchant(user({ roles: ['Desk'], globalScope: false }))).toBe(true);
    expect(isMerchant(null)).toBe(false);
  });
});
