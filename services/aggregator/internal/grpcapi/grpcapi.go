// Package grpcapi serves paygate.aggregator.v1.StatisticsService and
// JobService: it maps protos to the domains, and the caller's verified
// claims to their merchant scope.
package grpcapi

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	aggregatorv1 "github.com/paygate/paygate/gen/go/paygate/aggregator/v1"
	"github.com/paygate/paygate/services/aggregator/internal/jobstats"
	"github.com/paygate/paygate/services/aggregator/internal/statistics"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/stepup"
)

// Statistics implements aggregatorv1.StatisticsServiceServer.
type Statistics struct {
	aggregatorv1.UnimplementedStatisticsServiceServer
	svc *statistics.Service
}

var _ aggregatorv1.StatisticsServiceServer = (*Statistics)(nil)

// NewStatistics returns the StatisticsService implementation.
func NewStatistics(svc *statistics.Service) *Statistics { return &Statistics{svc: svc} }

// GetStatistics implements aggregatorv1.StatisticsServiceServer.
func (s *Statistics) GetStatistics(ctx context.Context, req *aggregatorv1.GetStatisticsRequest) (*aggregatorv1.GetStatisticsResponse, error) {
	claims, ok := access.FromContext(ctx)
	if !ok {
		return nil, apperr.Unauthenticated("Please sign in to continue.")
	}
	scope := statistics.Scope{Global: claims.GlobalScope(), Merchants: claims.MerchantIDs}
	st, err := s.svc.Get(ctx, scope, statistics.Request{
		Currency: req.GetCurrency(), From: req.GetFrom(), To: req.GetTo(), MerchantID: req.GetMerchantId(),
	})
	if err != nil {
		return nil, err
	}
	resp := &aggregatorv1.GetStatisticsResponse{
		Total: st.Total, Successful: st.Successful, Failed: st.Failed, Pending: st.Pending, Refunded: st.Refunded,
		ValidationFailed: st.ValidationFailed, PspError: st.PSPError, Cancelled: st.Cancelled, NotConfirmed: st.NotConfirmed,
		CashInData: cashFlow(st.CashIn), CashOutData: cashFlow(st.CashOut),
		CashInDataByMerchant: merchantCash(st.CashInByMerchant), CashOutDataByMerchant: merchantCash(st.CashOutByMerchant),
		Currency: st.Currency, From: timestamppb.New(st.Range.From), To: timestamppb.New(st.Range.To),
		ByProvider: []*aggregatorv1.ProviderStatistics{}, ByMerchant: []*aggregatorv1.MerchantStatistics{},
		Unconverted: []*aggregatorv1.UnconvertedAmount{},
	}
	for _, p := range st.ByProvider {
		resp.ByProvider = append(resp.ByProvider, &aggregatorv1.ProviderStatistics{
			ProviderId: p.ID, ProviderName: p.Name, Count: p.Count, Successful: p.Successful})
	}
	for _, m := range st.ByMerchant {
		resp.ByMerchant = append(resp.ByMerchant, &aggregatorv1.MerchantStatistics{
			MerchantId: m.ID, MerchantName: m.Name, Count: m.Count, Successful: m.Successful})
	}
	for _, u := range st.Unconverted {
		resp.Unconverted = append(resp.Unconverted, &aggregatorv1.UnconvertedAmount{
			Currency: u.Currency, TransactionType: u.Type, Amount: u.Amount, Count: u.Count})
	}
	if !st.AsOf.IsZero() {
		resp.AsOf = timestamppb.New(st.AsOf)
	}
	return resp, nil
}

func cashFlow(c statistics.CashFlow) *aggregatorv1.CashFlow {
	out := &aggregatorv1.CashFlow{Amount: c.Amount, Count: c.Count, Days: make([]*aggregatorv1.CashFlowDay, len(c.Days))}
	for i, d := range c.Days {
		out.Days[i] = &aggregatorv1.CashFlowDay{Start: timestamppb.New(d.Start), Amount: d.Amount, Count: d.Count}
	}
	return out
}

func merchantCash(ms []statistics.MerchantCash) []*aggregatorv1.MerchantCashFlow {
	out := make([]*aggregatorv1.MerchantCashFlow, len(ms))
	for i, m := range ms {
		out[i] = &aggregatorv1.MerchantCashFlow{MerchantId: m.ID, MerchantName: m.Name, Amount: m.Amount, Count: m.Count}
	}
	return out
}

// Jobs implements aggregatorv1.JobServiceServer.
type Jobs struct {
	aggregatorv1.UnimplementedJobServiceServer
	svc *jobstats.Service
}

var _ aggregatorv1.JobServiceServer = (*Jobs)(nil)

// NewJobs returns the JobService implementation.
func NewJobs(svc *jobstats.Service) *Jobs { return &Jobs{svc: svc} }

// GetJobStats implements aggregatorv1.JobServiceServer.
func (j *Jobs) GetJobStats(ctx context.Context, _ *aggregatorv1.GetJobStatsRequest) (*aggregatorv1.GetJobStatsResponse, error) {
	jobs, err := j.svc.Stats(ctx)
	if err != nil {
		return nil, err
	}
	resp := &aggregatorv1.GetJobStatsResponse{Jobs: make(map[string]*aggregatorv1.JobStats, len(jobs))}
	for _, job := range jobs {
		resp.Jobs[job.Name] = jobStats(job)
	}
	return resp, nil
}

// SetJobEnabled implements aggregatorv1.JobServiceServer.
func (j *Jobs) SetJobEnabled(ctx context.Context, req *aggregatorv1.SetJobEnabledRequest) (*aggregatorv1.SetJobEnabledResponse, error) {
	if req.GetName() == "" {
		return nil, apperr.Invalid("name is required.")
	}
	job, err := j.svc.SetEnabled(ctx, req.GetName(), req.GetEnabled())
	if err != nil {
		return nil, err
	}
	return &aggregatorv1.SetJobEnabledResponse{Job: jobStats(job)}, nil
}

func jobStats(j jobstats.Job) *aggregatorv1.JobStats {
	out := &aggregatorv1.JobStats{
		Enabled: j.Enabled, Running: j.Running, TotalRunsSinceStartup: j.TotalRunsSinceStartup,
		LastRunError: j.LastRunError, Service: j.Service, Description: j.Description, IntervalMs: j.IntervalMS,
		Stale: j.Stale, LastRunStartedUtc: ts(j.LastRunStarted), LastRunCompletedUtc: ts(j.LastRunCompleted),
		NextRunExpectedAtUtc: ts(j.NextRunExpectedAt),
		LastRunNotifications: make([]*aggregatorv1.JobNotification, len(j.Notifications)),
	}
	for i, n := range j.Notifications {
		out.LastRunNotifications[i] = &aggregatorv1.JobNotification{Level: n.Level, DateTimeUtc: timestamppb.New(n.At), Message: n.Message}
	}
	return out
}

func ts(t *time.Time) *timestamppb.Timestamp {
	if t == nil {
		return nil
	}
	return timestamppb.New(*t)
}

// MethodSetJobEnabled is the aggregator's sensitive method (job.set_enabled).
const MethodSetJobEnabled = "/paygate.aggregator.v1.JobService/SetJobEnabled"

// ObserveJob observes a job's switch (enabled) for stepup: what the
// requester signs and what must still hold when the change is applied. An
// unknown job has no observed values (the handler answers it).
func ObserveJob(svc *jobstats.Service) stepup.Observer {
	return func(ctx context.Context, req proto.Message) (map[string]any, error) {
		r, ok := req.(*aggregatorv1.SetJobEnabledRequest)
		if !ok {
			return nil, fmt.Errorf("observe job: %T", req)
		}
		jobs, err := svc.Stats(ctx)
		if err != nil {
			return nil, err
		}
		for _, j := range jobs {
			if j.Name == r.GetName() {
				return map[string]any{"enabled": j.Enabled}, nil
			}
		}
		return nil, nil
	}
}
