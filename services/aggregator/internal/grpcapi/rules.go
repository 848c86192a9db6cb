package grpcapi

import (
	aggregatorv1 "github.com/paygate/paygate/gen/go/paygate/aggregator/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

// Rules says who may call each method (docs/contracts-statistics.md,
// docs/contracts-jobs.md). Merchant scope is enforced by the statistics
// domain on top of these.
var Rules = authz.Rules{
	aggregatorv1.StatisticsService_GetStatistics_FullMethodName: {Permissions: []string{access.PermStatisticsAccess}},
	aggregatorv1.JobService_GetJobStats_FullMethodName:          {Permissions: []string{access.PermJobsAccess}},
	// Switching a job is for admins (access.ReqChangeJobs).
	aggregatorv1.JobService_SetJobEnabled_FullMethodName: {Requires: access.ReqChangeJobs},
}
