import { describe, expect, it } from 'vitest';
import { toJob, toJobs, toNotifications } from './types';

describe('toJob', () => {
  it('reads int64 strings as numbers and keeps the timestamps', () => {
    const job = toJob('gateway.totals-fold', {
      enabled: true,
      running: true,
      lastRunStartedUtc: '2026-03-10T09:59:59Z',
      lastRunCompletedUtc: '2026-03-10T09:59:58Z',
      nextRunExpectedAtUtc: '2026-03-10T10:00:00Z',
      totalRunsSinceStartup: '9007199254740',
      intervalMs: '1000',
      service: 'gateway',
      description: 'Folds totals.',
      stale: true,
      lastRunError: 'boom',
    });
    expect(job).toEqual({
      name: 'gateway.totals-fold',
      service: 'gateway',
      description: 'Folds totals.',
      enabled: true,
      running: true,
      lastRunStartedUtc: '2026-03-10T09:59:59Z',
      lastRunCompletedUtc: '2026-03-10T09:59:58Z',
      nextRunExpectedAtUtc: '2026-03-10T10:00:00Z',
      totalRunsSinceStartup: 9007199254740,
      lastRunError: 'boom',
      notifications: [],
      intervalMs: 1000,
      stale: true,
    });
  });

  it('fills what proto3 JSON leaves out, nulls included', () => {
    const job = toJob('auth.session-cleanup', { lastRunStartedUtc: null, nextRunExpectedAtUtc: '', totalRunsSinceStartup: null });
    expect(job).toMatchObject({
      service: 'auth', // from the name when the server sends none
      enabled: false,
      running: false,
      lastRunStartedUtc: null,
      lastRunCompletedUtc: null,
      nextRunExpectedAtUtc: null,
      totalRunsSinceStartup: 0,
      intervalMs: 0,
      lastRunError: '',
      stale: false,
    });
    expect(toJob('nodots', null).service).toBe('');
  });
});

describe('toNotifications', () => {
  it('orders newest first, keeping the server order among equal times, and keeps 50', () => {
    const list = toNotifications([
      { level: 2, dateTimeUtc: '2026-03-10T09:00:01Z', message: 'b' },
      { level: 3, dateTimeUtc: '2026-03-10T09:00:02Z', message: 'c' },
      { dateTimeUtc: '2026-03-10T09:00:01Z', message: 'b2' },
      { level: 4, message: 'no time' },
    ]);
    expect(list.map((n) => n.message)).toEqual(['c', 'b', 'b2', 'no time']);
    expect(list[2]).toEqual({ level: 0, dateTimeUtc: '2026-03-10T09:00:01Z', message: 'b2' });
    expect(list[3]!.dateTimeUtc).toBeNull();
    expect(toNotifications(Array.from({ length: 70 }, (_, i) => ({ level: 2, message: String(i) })))).toHaveLength(50);
    expect(toNotifications(null)).toEqual([]);
  });
});

describe('toJobs', () => {
  it('turns the map into a list named by its keys', () => {
    expect(toJobs({ 'a.x': { enabled: true }, 'b.y': {} }).map((j) => [j.name, j.enabled])).toEqual([
      ['a.x', true],
      ['b.y', false],
    ]);
    expect(toJobs(null)).toEqual([]);
  });
});
