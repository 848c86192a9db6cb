package grpcapi

import (
	"context"
	"strconv"

	"google.golang.org/protobuf/types/known/timestamppb"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/callbacks/internal/retry"
	"github.com/paygate/paygate/services/internal/apperr"
)

// RetryServer implements callbacksv1.CallbackRetryServiceServer
// (docs/contracts-bulk.md, "Callbacks service").
type RetryServer struct {
	callbacksv1.UnimplementedCallbackRetryServiceServer
	svc *retry.Service
}

var _ callbacksv1.CallbackRetryServiceServer = (*RetryServer)(nil)

// NewRetryServer returns the server of the bulk retries.
func NewRetryServer(svc *retry.Service) *RetryServer { return &RetryServer{svc: svc} }

func retryFilter(p *callbacksv1.CallbackRetryFilter) retry.Filter {
	return retry.Filter{CollabID: p.GetCollabId(), MerchantID: p.GetMerchantId(), CallbackURLID: p.GetCallbackUrlId(),
		From: p.GetFrom(), To: p.GetTo(), ResponseCode: p.GetResponseCode(), AttemptStatus: p.GetAttemptStatus()}
}

func retryFilterToProto(f retry.Filter) *callbacksv1.CallbackRetryFilter {
	return &callbacksv1.CallbackRetryFilter{CollabId: f.CollabID, MerchantId: f.MerchantID, CallbackUrlId: f.CallbackURLID,
		From: f.From, To: f.To, ResponseCode: f.ResponseCode, AttemptStatus: f.AttemptStatus}
}

func retryCounts(cs []retry.Count) []*callbacksv1.RetryCount {
	out := make([]*callbacksv1.RetryCount, 0, len(cs))
	for _, c := range cs {
		out = append(out, &callbacksv1.RetryCount{Key: c.Key, Reason: c.Reason, Count: c.Count})
	}
	return out
}

func retryRunToProto(r retry.Run) *callbacksv1.CallbackRetry {
	p := &callbacksv1.CallbackRetry{Id: r.ID, State: string(r.State), Filter: retryFilterToProto(r.Filter), Reason: r.Reason,
		CreatedBy: r.CreatedByName, ExpectedCount: r.ExpectedCount, Total: r.Total, Processed: r.Processed, Retried: r.Retried,
		Skipped: r.Skipped, ThroughputPerSecond: r.Throughput(), CreatedAt: timestamppb.New(r.CreatedAt)}
	if r.FinishedAt != nil {
		p.FinishedAt = timestamppb.New(*r.FinishedAt)
	}
	return p
}

// DryRunCallbackRetry implements callbacksv1.CallbackRetryServiceServer.
func (s *RetryServer) DryRunCallbackRetry(ctx context.Context, req *callbacksv1.DryRunCallbackRetryRequest) (*callbacksv1.DryRunCallbackRetryResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.svc.DryRun(ctx, scope, retryFilter(req.GetFilter()))
	if err != nil {
		return nil, err
	}
	resp := &callbacksv1.DryRunCallbackRetryResponse{Matched: d.Matched, WouldRetry: d.WouldRetry, Skipped: retryCounts(d.Skipped),
		ByMerchant: retryCounts(d.ByMerchant), ByResponseCode: retryCounts(d.ByResponseCode), Cap: d.Cap, OverCap: d.OverCap,
		Sample: make([]*callbacksv1.RetrySample, 0, len(d.Sample))}
	for _, x := range d.Sample {
		resp.Sample = append(resp.Sample, &callbacksv1.RetrySample{DeliveryId: x.DeliveryID, TransactionId: x.TransactionID,
			MerchantId: x.MerchantID, Url: x.URL, ResponseCode: x.ResponseCode, FailedAt: timestamppb.New(x.FailedAt)})
	}
	return resp, nil
}

// StartCallbackRetry implements callbacksv1.CallbackRetryServiceServer.
func (s *RetryServer) StartCallbackRetry(ctx context.Context, req *callbacksv1.StartCallbackRetryRequest) (*callbacksv1.StartCallbackRetryResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.svc.Start(ctx, actor, retryFilter(req.GetFilter()), req.GetReason(), req.GetExpectedCount())
	if err != nil {
		return nil, err
	}
	return &callbacksv1.StartCallbackRetryResponse{Run: retryRunToProto(r)}, nil
}

// ListCallbackRetries implements callbacksv1.CallbackRetryServiceServer.
func (s *RetryServer) ListCallbackRetries(ctx context.Context, req *callbacksv1.ListCallbackRetriesRequest) (*callbacksv1.ListCallbackRetriesResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	var before int64
	if t := req.GetPageToken(); t != "" {
		if before, err = strconv.ParseInt(t, 10, 64); err != nil || before <= 0 {
			return nil, apperr.Invalid("pageToken is not one this list gave; start again without it.")
		}
	}
	runs, next, err := s.svc.List(ctx, scope, before, req.GetPageSize())
	if err != nil {
		return nil, err
	}
	resp := &callbacksv1.ListCallbackRetriesResponse{Runs: make([]*callbacksv1.CallbackRetry, 0, len(runs))}
	for _, r := range runs {
		resp.Runs = append(resp.Runs, retryRunToProto(r))
	}
	if next > 0 {
		resp.NextPageToken = strconv.FormatInt(next, 10)
	}
	return resp, nil
}

// GetCallbackRetry implements callbacksv1.CallbackRetryServiceServer.
func (s *RetryServer) GetCallbackRetry(ctx context.Context, req *callbacksv1.GetCallbackRetryRequest) (*callbacksv1.GetCallbackRetryResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.svc.Get(ctx, scope, req.GetId())
	if err != nil {
		return nil, err
	}
	return &callbacksv1.GetCallbackRetryResponse{Run: retryRunToProto(r)}, nil
}

// ChangeCallbackRetry implements callbacksv1.CallbackRetryServiceServer.
func (s *RetryServer) ChangeCallbackRetry(ctx context.Context, req *callbacksv1.ChangeCallbackRetryRequest) (*callbacksv1.ChangeCallbackRetryResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.svc.Change(ctx, scope, req.GetId(), req.GetVerb())
	if err != nil {
		return nil, err
	}
	return &callbacksv1.ChangeCallbackRetryResponse{Run: retryRunToProto(r)}, nil
}
