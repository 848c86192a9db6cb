package grpcapi

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/apperr"
)

// EndpointServer implements callbacksv1.CallbackEndpointServiceServer
// (docs/contracts-callbacks.md, "Endpoint health").
type EndpointServer struct {
	callbacksv1.UnimplementedCallbackEndpointServiceServer
	svc *callback.Endpoints
}

var _ callbacksv1.CallbackEndpointServiceServer = (*EndpointServer)(nil)

// NewEndpointServer returns the CallbackEndpointService implementation.
func NewEndpointServer(svc *callback.Endpoints) *EndpointServer { return &EndpointServer{svc: svc} }

// EnableCallback implements callbacksv1.CallbackEndpointServiceServer.
func (s *EndpointServer) EnableCallback(ctx context.Context, req *callbacksv1.EnableCallbackRequest) (*callbacksv1.EnableCallbackResponse, error) {
	if req.GetId() <= 0 {
		return nil, apperr.Invalid("id must be a callback URL's id (a positive number).")
	}
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	u, runID, err := s.svc.Enable(ctx, a, req.GetId(), req.GetRecoverSinceDisabled())
	if err != nil {
		return nil, err
	}
	out := &callbacksv1.EnableCallbackResponse{Callback: urlToProto(u)}
	if runID != 0 {
		out.RetryRunId = &runID
	}
	return out, nil
}

// SetCallbackHeaders implements callbacksv1.CallbackEndpointServiceServer.
func (s *EndpointServer) SetCallbackHeaders(ctx context.Context, req *callbacksv1.SetCallbackHeadersRequest) (*callbacksv1.SetCallbackHeadersResponse, error) {
	if req.GetId() <= 0 {
		return nil, apperr.Invalid("id must be a callback URL's id (a positive number).")
	}
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	u, err := s.svc.SetHeaders(ctx, a, req.GetId(), headersFromProto(req.GetHeaders()))
	if err != nil {
		return nil, err
	}
	return &callbacksv1.SetCallbackHeadersResponse{Callback: urlToProto(u)}, nil
}

// ListEndpointHealth implements callbacksv1.CallbackEndpointServiceServer.
func (s *EndpointServer) ListEndpointHealth(ctx context.Context, req *callbacksv1.ListEndpointHealthRequest) (*callbacksv1.ListEndpointHealthResponse, error) {
	if req.GetMerchantId() <= 0 {
		return nil, apperr.Invalid("merchantId must be a merchant's id (a positive number).")
	}
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	hs, err := s.svc.Health(ctx, scope, req.GetMerchantId())
	if err != nil {
		return nil, err
	}
	out := &callbacksv1.ListEndpointHealthResponse{Endpoints: make([]*callbacksv1.EndpointHealth, 0, len(hs))}
	for _, h := range hs {
		out.Endpoints = append(out.Endpoints, healthToProto(h))
	}
	return out, nil
}

// breakerStates are the breaker states as the API names them.
var breakerStates = map[callback.BreakerState]string{
	callback.BreakerClosed: "closed", callback.BreakerOpen: "open", callback.BreakerHalfOpen: "halfOpen",
	callback.BreakerDisabled: "disabled",
}

func healthToProto(h callback.EndpointHealth) *callbacksv1.EndpointHealth {
	p := &callbacksv1.EndpointHealth{
		CallbackId: h.URL.ID, CallbackUrl: h.URL.URL, IsEnabled: h.URL.Enabled, Attempts: h.Attempts, Successes: h.Successes,
		BreakerState: breakerStates[h.Breaker.State], ConsecutiveFailures: h.Breaker.Failures,
	}
	if p.BreakerState == "" {
		p.BreakerState = "closed"
	}
	if h.Attempts > 0 {
		rate := float64(h.Successes) / float64(h.Attempts)
		p.SuccessRate = &rate
	}
	if h.HasP95 {
		ms := int32(h.P95.Milliseconds())
		p.P95LatencyMs = &ms
	}
	if !h.Breaker.FailingSince.IsZero() {
		p.FailingSinceUtc = timestamppb.New(h.Breaker.FailingSince)
	}
	if !h.Breaker.RetryAt.IsZero() && h.Breaker.State == callback.BreakerOpen {
		p.RetryUtc = timestamppb.New(h.Breaker.RetryAt)
	}
	if !h.URL.DisabledAt.IsZero() {
		reason := h.URL.DisabledReason
		p.DisabledReason, p.DisabledUtc = &reason, timestamppb.New(h.URL.DisabledAt)
	}
	return p
}
