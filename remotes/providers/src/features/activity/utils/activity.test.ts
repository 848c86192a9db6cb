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
