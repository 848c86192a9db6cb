import { describe, expect, it } from 'vitest';
import { localPasswordProblems } from './password-policy';

const rules = (password: string, ctx = {}) => localPasswordProblems(password, ctx).map((p) => p.rule);

describe('localPasswordProblems (the rules the console checks as the user types)', () => {
  it('follows the server: required, blank, length, username, current', () => {
    expect(rules('')).toEqual(['required']);
    expect(rules(' '.repeat(14))).toEqual(['blank']);
    expect(rules('short-one')).toEqual(['tooShort']);
    expect(rules('x'.repeat(129))).toEqual(['tooLong']);
    expect(rules(' Alice-Longname ', { username: 'alice-longname' })).toEqual(['username']);
    expect(rules('Same-As-Before-1', { current: 'Same-As-Before-1' })).toEqual(['current']);
    expect(rules('Sturdy-Harbor-Lantern-7', { username: 'alice', current: 'old' })).toEqual([]);
  });

  it('counts characters, not UTF-16 units, and takes the bounds the server gives', () => {
    expect(rules('🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑')).toEqual([]);
    expect(rules('eight-ch', { minLength: 8 })).toEqual([]);
  });

  it('names the field in its sentences, as the server does', () => {
    expect(localPasswordProblems('short', { field: 'newPassword' })[0]?.message).toBe('newPassword must be at least 12 characters long.');
    expect(localPasswordProblems('')[0]?.message).toBe('password is required.');
  });
});
