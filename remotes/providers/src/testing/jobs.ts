import '@paygate/devkit/testing/pointer-event';
import { http, HttpResponse } from 'msw';
import { SCREENS, type RemoteManifest } from '@paygate/sdk';
import { withRemote } from '@paygate/devkit/testing';
import { GATEWAY, TEST_CONFIG } from '@paygate/devkit/testing/msw';
import type { JobStatsMapWire, JobStatsWire } from '../features/jobs/api/types';
import { JobsPage } from '../features/jobs/components/jobs-page';

/** AGGREGATOR prefixes the aggregator's URLs in tests. */
export const AGGREGATOR = TEST_CONFIG.aggregatorUrl;

/**
 * jobsLoader serves the Jobs page from whichever remote the route table gives
 * /jobs to, and stubs the others (the table moves /jobs to this remote).
 */
export function jobsLoader() {
  const manifest: RemoteManifest = { name: SCREENS.jobs.remote, routes: [{ path: SCREENS.jobs.path, Component: JobsPage }] };
  return withRemote(manifest);
}

/** A fixed 'now' of the fixtures: 2026-03-10 10:00:00 UTC. */
export const NOW = Date.parse('2026-03-10T10:00:00Z');
const at = (secondsFromNow: number) => new Date(NOW + secondsFromNow * 1000).toISOString();

/**
 * JOB_STATS is a realistic answer of GET /api/v1/jobs/stats: four services; a
 * running job, a disabled one, one whose last run failed, and a stale one.
 * Keys are deliberately unsorted, and int64 fields are strings as proto JSON
 * writes them.
 */
export const JOB_STATS: JobStatsMapWire = {
  'gateway.totals-fold': {
    enabled: true,
    running: false,
    lastRunStartedUtc: '2026-03-10T09:59:59Z',
    lastRunCompletedUtc: '2026-03-10T09:59:59.120Z',
    nextRunExpectedAtUtc: '2026-03-10T10:00:00Z',
    totalRunsSinceStartup: '3600',
    lastRunError: '',
    lastRunNotifications: [],
    service: 'gateway',
    description: 'Folds the transaction list totals into hourly and daily rollups.',
    intervalMs: '1000',
    stale: false,
  },
  'callbacks.delivery-claim': {
    enabled: true,
    running: true,
    lastRunStartedUtc: '2026-03-10T09:59:58Z',
    lastRunCompletedUtc: '2026-03-10T09:59:57Z',
    nextRunExpectedAtUtc: '2026-03-10T10:00:00Z',
    totalRunsSinceStartup: '12345',
    lastRunError: '',
    lastRunNotifications: [
      { level: 2, dateTimeUtc: '2026-03-10T09:59:58Z', message: 'Claimed 4 deliveries' },
    ],
    service: 'callbacks',
    description: 'Claims due callback deliveries and sends them.',
    intervalMs: '1000',
    stale: false,
  },
  'gateway.provider-polling': {
    enabled: true,
    running: false,
    lastRunStartedUtc: '2026-03-10T09:59:50Z',
    lastRunCompletedUtc: '2026-03-10T09:59:51Z',
    nextRunExpectedAtUtc: '2026-03-10T09:59:52Z',
    totalRunsSinceStartup: '42',
    lastRunError: 'poll GoVip transaction 1234: context deadline exceeded',
    // Deliberately out of order: the page shows the newest first.
    lastRunNotifications: [
      { level: 0, dateTimeUtc: '2026-03-10T09:59:50.100Z', message: 'Polling 3 transactions' },
      { level: 4, dateTimeUtc: '2026-03-10T09:59:51Z', message: 'GoVip did not answer for transaction 1234' },
      { level: 5, dateTimeUtc: '2026-03-10T09:59:51.500Z', message: 'Run failed' },
      { level: 3, dateTimeUtc: '2026-03-10T09:59:50.900Z', message: 'Transaction 1233 is still pending after 10 polls' },
      { level: 1, dateTimeUtc: '2026-03-10T09:59:50.200Z', message: 'GoVip: 2, QRPh: 1' },
      { level: 2, dateTimeUtc: '2026-03-10T09:59:50.500Z', message: 'Transaction 1232 is now Success' },
    ],
    service: 'gateway',
    description: 'Asks providers for the status of pending transactions.',
    intervalMs: '2000',
    stale: false,
  },
  'auth.session-cleanup': {
    enabled: false,
    running: false,
    lastRunStartedUtc: '2026-03-10T09:00:00Z',
    lastRunCompletedUtc: '2026-03-10T09:00:01Z',
    nextRunExpectedAtUtc: null,
    totalRunsSinceStartup: '7',
    lastRunError: '',
    lastRunNotifications: [{ level: 2, dateTimeUtc: '2026-03-10T09:00:01Z', message: 'Removed 12 expired sessions' }],
    service: 'auth',
    description: 'Removes expired sessions and refresh tokens.',
    intervalMs: '3600000',
    stale: false,
  },
  'aggregator.statistics-consumer': {
    enabled: true,
    running: false,
    lastRunStartedUtc: at(-600),
    lastRunCompletedUtc: at(-599),
    nextRunExpectedAtUtc: at(-590),
    totalRunsSinceStartup: '900',
    lastRunError: '',
    lastRunNotifications: [],
    service: 'aggregator',
    description: 'Consumes transaction events into the statistics rollups.',
    intervalMs: '5000',
    stale: true,
  },
};

/** job returns a copy of a fixture job with changes. */
export function job(name: string, changes: Partial<JobStatsWire> = {}): JobStatsWire {
  const base = JOB_STATS[name];
  if (!base) throw new Error(`no fixture job ${name}`);
  return { ...base, ...changes };
}

/** jobStatsHandler answers GET /api/v1/jobs/stats with `body` (default JOB_STATS). */
export function jobStatsHandler(body: JobStatsMapWire = JOB_STATS) {
  return http.get(`${AGGREGATOR}/api/v1/jobs/stats`, () => HttpResponse.json(body));
}

/** bulkRunsHandler answers the gateway's GET /api/v1/bulk-actions with runs (default none). */
export function bulkRunsHandler(runs: unknown[] = []) {
  return http.get(`${GATEWAY}/api/v1/bulk-actions`, () => HttpResponse.json({ runs, nextPageToken: '' }));
}

/** callbackRetriesHandler answers the callbacks service's GET /api/v1/callback-retries (through the gateway) with runs (default none). */
export function callbackRetriesHandler(runs: unknown[] = []) {
  return http.get(`${GATEWAY}/api/v1/callback-retries`, () => HttpResponse.json({ runs, nextPageToken: '' }));
}
