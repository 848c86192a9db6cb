import { describe, expect, it } from 'vitest';
import {
  activityStats,
  activityUsers,
  categoryOf,
  diffValues,
  filterActivity,
  isSystemUser,
  NO_FILTERS,
  parseActivity,
  parseJsonValue,
  parseProofs,
  proofKindLabel,
  proofRoleLabel,
  proofSigner,
  severityOf,
} from './activity';

const ns = (iso: string) => `${Date.parse(iso)}000000`;
const msg = (o: Record<string, unknown>) => JSON.stringify(o);

const ANSWER = {
  status: 'success',
  data: {
    resultType: 'streams',
    result: [
      { stream: { action: 'Limits' }, values: [[ns('2025-11-20T10:00:00Z'), msg({ timestamp: '2025-11-20T10:00:00Z', Message: 'Limits changed', ActionType: 'Limits', Username: 'admin' })]] },
      { stream: {}, values: [[ns('2025-11-21T10:00:00Z'), msg({ Message: 'ATTENTION: maintenance mode enabled', ActionType: 'Configuration', Username: 'admin' })]] },
      { stream: {}, values: [[ns('2025-11-19T10:00:00Z'), msg({ Message: 'Sensitive action performed: collab disabled', ActionType: 'Status', Username: 'Background Job' })]] },
      { stream: {}, values: [[ns('2025-11-18T10:00:00Z'), 'not json']] },
      { stream: {}, values: [[ns('2025-11-17T10:00:00Z'), msg({ Message: 'Odd', ActionType: 'Weird', Username: 'auto-sync', OldValue: '{"a":1}', NewValue: '{"a":2,"b":"x"}', Count: 3 })]] },
    ],
  },
} as const;

describe('activity classification (spec 01 §4)', () => {
  it('counts a user as a background job when the name contains background, job, system or auto', () => {
    for (const name of ['Background worker', 'nightly-JOB', 'System', 'autopay']) expect(isSystemUser(name)).toBe(true);
    for (const name of ['admin', 'merchant', '']) expect(isSystemUser(name)).toBe(false);
  });

  it('is critical with ATTENTION:, warning with a sensitive action, normal otherwise', () => {
    expect(severityOf('ATTENTION: provider disabled')).toBe('critical');
    expect(severityOf('Sensitive action performed: x')).toBe('warning');
    expect(severityOf('ATTENTION: Sensitive action performed')).toBe('critical');
    expect(severityOf('Limits changed')).toBe('normal');
  });

  it('maps unknown action types to Other', () => {
    expect(categoryOf('Limits')).toBe('Limits');
    expect(categoryOf('Callback URL')).toBe('Callback URL');
    expect(categoryOf('Weird')).toBe('Other');
    expect(categoryOf('')).toBe('Other');
  });
});

describe('parseActivity', () => {
  const entries = parseActivity(ANSWER as never, 'Failed to parse collab logs');

  it('parses every value, newest first', () => {
    expect(entries.map((e) => e.message)).toEqual([
      'ATTENTION: maintenance mode enabled',
      'Limits changed',
      'Sensitive action performed: collab disabled',
      'Failed to parse collab logs',
      'Odd',
    ]);
  });

  it('marks an unparsable value with the given text', () => {
    const bad = entries.find((e) => e.unparsable)!;
    expect(bad.message).toBe('Failed to parse collab logs');
    expect(parseActivity(ANSWER as never, 'Failed to parse logs').find((e) => e.unparsable)?.message).toBe('Failed to parse logs');
  });

  it('keeps non-string values readable', () => {
    expect(entries.find((e) => e.message === 'Odd')?.count).toBe('3');
  });

  it('copes with an empty or odd answer', () => {
    expect(parseActivity(undefined, 'x')).toEqual([]);
    expect(parseActivity({ data: { result: [{ stream: {} }] } }, 'x')).toEqual([]);
  });

  it('counts the tiles', () => {
    expect(activityStats(entries)).toEqual({ total: 5, user: 3, system: 2, critical: 1, sensitive: 1 });
  });

  it('filters by category, user and severity together', () => {
    expect(filterActivity(entries, NO_FILTERS)).toHaveLength(5);
    expect(filterActivity(entries, { ...NO_FILTERS, category: 'Other' }).map((e) => e.message)).toEqual(['Failed to parse collab logs', 'Odd']);
    expect(filterActivity(entries, { ...NO_FILTERS, user: 'admin' })).toHaveLength(2);
    expect(filterActivity(entries, { ...NO_FILTERS, severity: 'critical' })).toHaveLength(1);
    expect(filterActivity(entries, { category: 'Limits', user: 'admin', severity: 'critical' })).toHaveLength(0);
    expect(activityUsers(entries)).toEqual(['admin', 'auto-sync', 'Background Job']);
  });
});

describe('diffValues', () => {
  it('compares objects key by key', () => {
    expect(diffValues(parseJsonValue('{"a":1,"c":true}'), parseJsonValue('{"a":2,"b":"x","c":true}'))).toEqual([
      { path: 'a', old: 1, new: 2, changed: true },
      { path: 'c', old: true, new: true, changed: false },
      { path: 'b', old: undefined, new: 'x', changed: true },
    ]);
  });

  it('compares scalars and plain strings as one row', () => {
    expect(diffValues(parseJsonValue('"1500.00"'), parseJsonValue('not json'))).toEqual([
      { path: '', old: '1500.00', new: 'not json', changed: true },
    ]);
    expect(parseJsonValue('')).toBeUndefined();
  });
});

const PROOF = {
  kind: 'webauthn',
  role: 'actor',
  userId: 7,
  username: 'alice',
  confirmationId: 'c-1',
  action: '{"method":"x"}',
  digest: 'ab12',
  nonce: 'n',
  expiresAt: 1764950000,
  credentialId: 'cred',
  authenticatorData: 'ad',
  clientDataJson: 'cd',
  signature: 'sig',
};
const TOTP = { kind: 'totp', role: 'approver', userId: '8', username: 'bob', confirmationId: 'c-1', action: 'a', digest: 'd', step: 1, mac: 'm' };

describe('parseProofs (issue 28)', () => {
  it('reads a list of proofs, keeping each proof as recorded', () => {
    const read = parseProofs([PROOF, TOTP]);
    expect(read.status).toBe('read');
    if (read.status !== 'read') return;
    expect(read.proofs.map(({ key, kind, role, userId, username, confirmationId }) => ({ key, kind, role, userId, username, confirmationId }))).toEqual([
      { key: '0', kind: 'webauthn', role: 'actor', userId: '7', username: 'alice', confirmationId: 'c-1' },
      { key: '1', kind: 'totp', role: 'approver', userId: '8', username: 'bob', confirmationId: 'c-1' },
    ]);
    expect(read.proofs[0]!.raw).toEqual(PROOF);
  });

  it('reads the JSON text of a list the same way', () => {
    expect(parseProofs(JSON.stringify([PROOF]))).toEqual(parseProofs([PROOF]));
    expect(parseProofs('[]')).toEqual({ status: 'read', proofs: [] });
  });

  it('has no proofs when Proofs is absent, null or empty', () => {
    for (const v of [undefined, null, '', '  ', 'null']) expect(parseProofs(v)).toEqual({ status: 'none' });
  });

  it('says a malformed value is unreadable', () => {
    for (const v of ['{broken', '"[]"', '{}', 42, true, PROOF, [PROOF, 'x'], [null], [{ role: 'actor' }], [{ ...PROOF, userId: {} }], [{ ...PROOF, username: 3 }], [[PROOF]]]) {
      expect(parseProofs(v)).toEqual({ status: 'unreadable' });
    }
  });

  it('names roles and kinds, the TOTP code as the weaker proof', () => {
    expect(['actor', 'requester', 'approver', 'auditor', ''].map(proofRoleLabel)).toEqual([
      'Actor',
      'Requester',
      'Approver',
      'Unknown role (auditor)',
      'Unknown role',
    ]);
    expect(['webauthn', 'totp', 'none', 'sms'].map(proofKindLabel)).toEqual([
      'Passkey',
      'TOTP code (weaker proof)',
      'No signature (step-up did not apply)',
      'Unknown kind (sms)',
    ]);
    expect(proofSigner({ username: 'alice', userId: '7' })).toBe('alice (7)');
    expect(proofSigner({ username: '', userId: '' })).toBe('Unknown user');
  });
});

describe('parseActivity with a confirmation (issue 28)', () => {
  const answer = (m: Record<string, unknown>) => ({ data: { result: [{ stream: {}, values: [[ns('2025-11-20T10:00:00Z'), msg(m)]] }] } });

  it('reads ConfirmationId, Reason and Proofs as the gateway sends them', () => {
    const [e] = parseActivity(
      answer({ Message: 'Sensitive action performed: fee.update', Reason: 'quarterly review', ConfirmationId: 'c-1', SensitiveActionName: 'fee.update', Proofs: [PROOF] }),
      'x',
    );
    expect(e).toMatchObject({ confirmationId: 'c-1', reason: 'quarterly review', sensitiveActionName: 'fee.update', hasConfirmation: true });
    expect(e!.proofs.status === 'read' && e!.proofs.proofs.map((p) => p.username)).toEqual(['alice']);
  });

  it('keeps an entry with unreadable proofs, marked so', () => {
    const [e] = parseActivity(answer({ Message: 'm', ConfirmationId: 'c-2', Proofs: 'not json' }), 'x');
    expect(e).toMatchObject({ unparsable: false, hasConfirmation: true, proofs: { status: 'unreadable' } });
  });

  it('has no confirmation without an id or proofs, even with a reason', () => {
    const [e] = parseActivity(answer({ Message: 'm', Reason: 'why', Proofs: null }), 'x');
    expect(e).toMatchObject({ confirmationId: '', reason: 'why', hasConfirmation: false, proofs: { status: 'none' } });
    expect(parseActivity(answer({}), 'x')[0]!.hasConfirmation).toBe(false);
    expect(parseActivity({ data: { result: [{ values: [['1', 'nope']] }] } }, 'x')[0]).toMatchObject({ unparsable: true, hasConfirmation: false });
  });
});
