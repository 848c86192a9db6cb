import { describe, expect, it } from 'vitest';
import { collabPlaceholder, numberError, parseNewKey, toCredentials, toFields } from './credentials';

describe('credentials form model (spec 02 §5)', () => {
  it('turns an object with one nested group into fields and back, numbers kept as numbers', () => {
    const c = { apiKey: 'k', port: 8443, live: false, auth: { user: 'u', pin: 1234 } };
    const fields = toFields(c);
    expect(fields.map((f) => [f.group, f.key, f.kind])).toEqual([
      ['', 'apiKey', 'text'],
      ['', 'port', 'number'],
      ['', 'live', 'boolean'],
      ['auth', 'user', 'text'],
      ['auth', 'pin', 'number'],
    ]);
    expect(toCredentials(fields)).toEqual(c);
  });

  it('sends an empty number field as empty text, not 0', () => {
    expect(toCredentials([{ group: '', key: 'port', kind: 'number', value: ' ' }])).toEqual({ port: '' });
    expect(numberError({ group: '', key: 'port', kind: 'number', value: '12a' })).toBe('port must be a number.');
  });

  it('reads added keys of one level only', () => {
    expect(parseNewKey('auth.user')).toEqual({ group: 'auth', key: 'user' });
    expect(parseNewKey('apiKey')).toEqual({ group: '', key: 'apiKey' });
    expect(parseNewKey('a.b.c')).toBeNull();
    expect(parseNewKey('a.')).toBeNull();
  });

  it("names the dropdown 'Select Collaboration' for admins and 'Select Provider' otherwise", () => {
    expect(collabPlaceholder(true)).toBe('Select Collaboration');
    expect(collabPlaceholder(false)).toBe('Select Provider');
  });
});
