import type { Job } from '../api/types';

/** JobStatus is what a job's badge says (spec 02 §4). */
export type JobStatus = 'running' | 'idle' | 'disabled';

/** jobStatus applies spec 02 §4: Disabled when enabled is false, else Running or Idle. */
export function jobStatus(job: Pick<Job, 'enabled' | 'running'>): JobStatus {
  if (!job.enabled) return 'disabled';
  return job.running ? 'running' : 'idle';
}

/** STATUS_BADGE gives each status its text and Chakra colour palette. */
export const STATUS_BADGE: Record<JobStatus, { label: string; palette: string }> = {
  running: { label: 'Running', palette: 'green' },
  idle: { label: 'Idle', palette: 'gray' },
  disabled: { label: 'Disabled', palette: 'red' },
};

/** NotificationLevel describes one notification level: its name and how its badge looks. */
export interface NotificationLevel {
  name: string;
  palette: string;
  variant: 'subtle' | 'solid' | 'outline';
}

/** The notification levels of spec 02 §4, by number. */
export const NOTIFICATION_LEVELS: readonly NotificationLevel[] = [
  { name: 'trace', palette: 'gray', variant: 'subtle' },
  { name: 'debug', palette: 'purple', variant: 'subtle' },
  { name: 'information', palette: 'blue', variant: 'subtle' },
  { name: 'warning', palette: 'orange', variant: 'subtle' },
  { name: 'error', palette: 'red', variant: 'subtle' },
  // Critical stands out from error: the same red, filled.
  { name: 'critical', palette: 'red', variant: 'solid' },
];

/** notificationLevel names a level; a level outside 0–5 is shown as such, in grey. */
export function notificationLevel(level: number): NotificationLevel {
  return NOTIFICATION_LEVELS[level] ?? { name: `level ${level}`, palette: 'gray', variant: 'outline' };
}

/** sortJobs orders jobs by service, then by name. */
export function sortJobs(jobs: readonly Job[]): Job[] {
  return [...jobs].sort((a, b) => a.service.localeCompare(b.service) || a.name.localeCompare(b.name));
}

/** ServiceGroup is one service and its jobs, in order. */
export interface ServiceGroup {
  service: string;
  jobs: Job[];
}

/** groupByService sorts the jobs and groups them by service (services in alphabetical order). */
export function groupByService(jobs: readonly Job[]): ServiceGroup[] {
  const groups: ServiceGroup[] = [];
  for (const job of sortJobs(jobs)) {
    const last = groups[groups.length - 1];
    if (last && last.service === job.service) last.jobs.push(job);
    else groups.push({ service: job.service, jobs: [job] });
  }
  return groups;
}

/** JobSummary holds the figures above the cards (spec 02 §2 "Jobs"). */
export interface JobSummary {
  total: number;
  enabled: number;
  running: number;
}

/** summarize counts the jobs, the enabled ones, and the ones with a run in progress. */
export function summarize(jobs: readonly Job[]): JobSummary {
  return {
    total: jobs.length,
    enabled: jobs.filter((j) => j.enabled).length,
    running: jobs.filter((j) => j.running).length,
  };
}

/** formatInterval writes an interval for people: '500 ms', '1 s', '1.5 s', '5 min', '2 h', '1 h 30 min'. */
export function formatInterval(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '';
  if (ms < 1_000) return `${ms} ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toFixed(1))} s`;
  const totalMinutes = Math.round(ms / 60_000);
  if (totalMinutes < 60) {
    const seconds = Math.round((ms % 60_000) / 1_000);
    return seconds ? `${Math.floor(ms / 60_000)} min ${seconds} s` : `${totalMinutes} min`;
  }
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  return minutes ? `${hours} h ${minutes} min` : `${hours} h`;
}
