import type { GetJobStatsResponseJson, JobNotificationJson, JobStatsJson } from '@paygate/gen/aggregator/v1/jobs_pb';

/**
 * The aggregator's JSON shapes for job stats (spec 02 §3 "Job stats",
 * proto/paygate/aggregator/v1/jobs.proto) and their normalizers. proto3 JSON
 * may leave out false, 0 and empty values and writes an unset timestamp as
 * null; int64 fields arrive as strings. The normalized types are what the
 * components use.
 */

/** Nullable admits null for every field: the REST gateway writes an unset field (a timestamp) as null. */
type Nullable<T> = { [K in keyof T]?: T[K] | null };

/** JobNotificationWire is one notification of a run on the wire. */
export type JobNotificationWire = Nullable<JobNotificationJson>;

/** JobStatsWire is one job's stats on the wire. */
export type JobStatsWire = Nullable<Omit<JobStatsJson, 'lastRunNotifications'>> & {
  lastRunNotifications?: JobNotificationWire[] | null;
};

/** JobStatsMapWire is the answer of GET /api/v1/jobs/stats (the response's `jobs`): job name to its stats. */
export type JobStatsMapWire = Record<keyof NonNullable<GetJobStatsResponseJson['jobs']>, JobStatsWire>;

/** JobNotification is one message a run wrote: its level (0–5), when, and what. */
export interface JobNotification {
  level: number;
  /** RFC 3339, or null when the server sent none. */
  dateTimeUtc: string | null;
  message: string;
}

/** Job is one background job of one service and what its runs reported. */
export interface Job {
  /** The job's name, e.g. `gateway.provider-polling` (the key of the stats map). */
  name: string;
  /** The service that runs it, e.g. `gateway`. */
  service: string;
  description: string;
  /** False when an admin switched the job off. */
  enabled: boolean;
  /** A run has started and not ended. */
  running: boolean;
  /** RFC 3339 timestamps, null before the first run (next run: null when unknown). */
  lastRunStartedUtc: string | null;
  lastRunCompletedUtc: string | null;
  nextRunExpectedAtUtc: string | null;
  totalRunsSinceStartup: number;
  /** The last run's error; '' when it succeeded. */
  lastRunError: string;
  /** The last run's notifications, newest first (at most 50). */
  notifications: JobNotification[];
  /** The interval between runs in milliseconds (0 when unknown). */
  intervalMs: number;
  /** The job missed its expected run by more than two intervals. */
  stale: boolean;
}

/** The most notifications a card shows (spec: the last 50). */
export const MAX_NOTIFICATIONS = 50;

function timestamp(value: string | null | undefined): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** int64 reads a proto int64 (a JSON string, or a number from a lenient server); anything else is 0. */
function int64(value: string | number | null | undefined): number {
  const n = typeof value === 'number' ? value : Number(value ?? 0);
  return Number.isFinite(n) ? n : 0;
}

function time(n: JobNotification): number {
  const t = n.dateTimeUtc === null ? NaN : Date.parse(n.dateTimeUtc);
  return Number.isNaN(t) ? -Infinity : t;
}

/** toNotifications normalizes a run's notifications: newest first, at most 50. */
export function toNotifications(list: JobNotificationWire[] | null | undefined): JobNotification[] {
  return (list ?? [])
    .map((n) => ({ level: n.level ?? 0, dateTimeUtc: timestamp(n.dateTimeUtc), message: n.message ?? '' }))
    .map((n, i) => ({ n, i }))
    // Stable: the server's order stands among equal (or missing) times.
    .sort((a, b) => time(b.n) - time(a.n) || a.i - b.i)
    .slice(0, MAX_NOTIFICATIONS)
    .map(({ n }) => n);
}

/**
 * serviceOf is the job's service; a server that sends none still groups the
 * job by its name's prefix (`gateway.provider-polling` → `gateway`).
 */
function serviceOf(name: string, service: string | null | undefined): string {
  if (service) return service;
  const dot = name.indexOf('.');
  return dot > 0 ? name.slice(0, dot) : '';
}

/** toJob normalizes one job's stats; the name is the key it came under. */
export function toJob(name: string, w: JobStatsWire | null | undefined): Job {
  const s = w ?? {};
  return {
    name,
    service: serviceOf(name, s.service),
    description: s.description ?? '',
    enabled: s.enabled ?? false,
    running: s.running ?? false,
    lastRunStartedUtc: timestamp(s.lastRunStartedUtc),
    lastRunCompletedUtc: timestamp(s.lastRunCompletedUtc),
    nextRunExpectedAtUtc: timestamp(s.nextRunExpectedAtUtc),
    totalRunsSinceStartup: int64(s.totalRunsSinceStartup),
    lastRunError: s.lastRunError ?? '',
    notifications: toNotifications(s.lastRunNotifications),
    intervalMs: int64(s.intervalMs),
    stale: s.stale ?? false,
  };
}

/** toJobs normalizes the stats map into a list (unsorted; see sortJobs). */
export function toJobs(body: JobStatsMapWire | null | undefined): Job[] {
  if (!body || typeof body !== 'object') return [];
  return Object.entries(body).map(([name, stats]) => toJob(name, stats));
}
