import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { JOB_STATS_KEY } from './get-job-stats';
import { toJob, type Job, type JobStatsWire } from './types';

/** The input of a job switch: the job's name and its new state. */
export const jobEnabledInput = z.object({
  name: z.string().trim().min(1),
  enabled: z.boolean(),
});

export type JobEnabledInput = z.infer<typeof jobEnabledInput>;

/**
 * setJobEnabled switches a job on or off on every replica of its service
 * (POST {aggregatorUrl}/api/v1/jobs/{name}/enabled with {"enabled": …}, role
 * Admin) and returns the job as the server now reports it, or null when the
 * server answered without a body.
 */
export async function setJobEnabled(input: JobEnabledInput): Promise<Job | null> {
  const { name, enabled } = jobEnabledInput.parse(input);
  const body = await api.post<JobStatsWire | undefined>('aggregator', `/api/v1/jobs/${encodeURIComponent(name)}/enabled`, { enabled });
  return body && typeof body === 'object' ? toJob(name, body) : null;
}

/**
 * useSetJobEnabled is the mutation of setJobEnabled; the answer replaces the
 * job in the loaded stats, so its card updates without reloading every job.
 */
export function useSetJobEnabled() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: setJobEnabled,
    onSuccess: (job, input) => {
      client.setQueryData<Job[]>(JOB_STATS_KEY, (jobs) =>
        jobs?.map((j) => {
          if (j.name !== input.name) return j;
          // An answer without the job (an empty body) still records the new state.
          return job ?? { ...j, enabled: input.enabled };
        }),
      );
    },
  });
}
