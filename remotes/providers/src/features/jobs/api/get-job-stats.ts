import { queryOptions, useQuery } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { toJobs, type Job, type JobStatsMapWire } from './types';

/** The key of the job stats query; the enable/disable mutation updates its data. */
export const JOB_STATS_KEY = ['jobs', 'stats'] as const;

/**
 * fetchJobStats reads every job's stats (GET {aggregatorUrl}/api/v1/jobs/stats,
 * Jobs Access): an object keyed by job name.
 */
export async function fetchJobStats(signal?: AbortSignal): Promise<Job[]> {
  const body = await api.get<JobStatsMapWire>('aggregator', '/api/v1/jobs/stats', { signal });
  return toJobs(body);
}

/** jobStatsQuery is the query of the job stats. */
export const jobStatsQuery = () =>
  queryOptions({
    queryKey: JOB_STATS_KEY,
    queryFn: ({ signal }) => fetchJobStats(signal),
  });

/** useJobStats reads the job stats; the page loads them on open. */
export function useJobStats() {
  return useQuery(jobStatsQuery());
}
