// Code generated from the aggregator service's authorization rules by services/internal/callrules (make call-rules). DO NOT EDIT.

import type { CallRule } from '../call-rule';

/** AGGREGATOR_CALLS: who may call each method of the aggregator service (its Go Rules table), and its REST routes. */
export const AGGREGATOR_CALLS = {
  '/paygate.aggregator.v1.JobService/GetJobStats': {
    http: ['GET /api/v1/jobs/stats'],
    rule: { permissions: ['Jobs Access'] },
  },
  '/paygate.aggregator.v1.JobService/SetJobEnabled': {
    http: ['POST /api/v1/jobs/{name}/enabled'],
    rule: { requires: 'changeJobs' },
  },
  '/paygate.aggregator.v1.StatisticsService/GetStatistics': {
    http: ['GET /api/v1/statistics'],
    rule: { permissions: ['Statistics Access'] },
  },
} as const satisfies Record<string, CallRule>;
