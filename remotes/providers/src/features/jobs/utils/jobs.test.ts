import { describe, expect, it } from 'vitest';
import { toJob } from '../api/types';
import { formatInterval, groupByService, jobStatus, notificationLevel, sortJobs, summarize } from './jobs';

const j = (name: string, changes: Parameters<typeof toJob>[1] = {}) => toJob(name, { enabled: true, ...changes });

describe('jobStatus (spec 02 §4)', () => {
  it('is Disabled when enabled is false, whatever running says; else Running or Idle', () => {
    expect(jobStatus({ enabled: false, running: false })).toBe('disabled');
    expect(jobStatus({ enabled: false, running: true })).toBe('disabled');
    expect(jobStatus({ enabled: true, running: true })).toBe('running');
    expect(jobStatus({ enabled: true, running: false })).toBe('idle');
  });
});

describe('notificationLevel (spec 02 §4)', () => {
  it('names levels 0–5 with their colours', () => {
    expect([0, 1, 2, 3, 4, 5].map((l) => notificationLevel(l).name)).toEqual(['trace', 'debug', 'information', 'warning', 'error', 'critical']);
    expect([0, 1, 2, 3, 4, 5].map((l) => notificationLevel(l).palette)).toEqual(['gray', 'purple', 'blue', 'orange', 'red', 'red']);
    expect(notificationLevel(5).variant).toBe('solid');
    expect(notificationLevel(4).variant).toBe('subtle');
  });

  it('shows an unknown level as such', () => {
    expect(notificationLevel(9)).toEqual({ name: 'level 9', palette: 'gray', variant: 'outline' });
    expect(notificationLevel(-1).name).toBe('level -1');
  });
});

describe('sorting, grouping and the summary', () => {
  const jobs = [
    j('gateway.totals-fold', { service: 'gateway', running: true }),
    j('auth.session-cleanup', { service: 'auth', enabled: false }),
    j('gateway.outbox-relay', { service: 'gateway' }),
    j('callbacks.delivery-claim', { service: 'callbacks', running: true }),
  ];

  it('sorts by service, then name', () => {
    expect(sortJobs(jobs).map((x) => x.name)).toEqual(['auth.session-cleanup', 'callbacks.delivery-claim', 'gateway.outbox-relay', 'gateway.totals-fold']);
  });

  it('groups by service in that order', () => {
    expect(groupByService(jobs).map((g) => [g.service, g.jobs.map((x) => x.name)])).toEqual([
      ['auth', ['auth.session-cleanup']],
      ['callbacks', ['callbacks.delivery-claim']],
      ['gateway', ['gateway.outbox-relay', 'gateway.totals-fold']],
    ]);
  });

  it('counts total, enabled and running', () => {
    expect(summarize(jobs)).toEqual({ total: 4, enabled: 3, running: 2 });
    expect(summarize([])).toEqual({ total: 0, enabled: 0, running: 0 });
  });
});

describe('formatInterval', () => {
  it.each([
    [0, ''],
    [500, '500 ms'],
    [1_000, '1 s'],
    [1_500, '1.5 s'],
    [30_000, '30 s'],
    [60_000, '1 min'],
    [90_000, '1 min 30 s'],
    [300_000, '5 min'],
    [3_600_000, '1 h'],
    [5_400_000, '1 h 30 min'],
    [86_400_000, '24 h'],
  ])('%i ms → %s', (ms, text) => {
    expect(formatInterval(ms)).toBe(text);
  });
});
