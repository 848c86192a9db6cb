package grpcapi

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/validation"
)

// validationServer serves ValidationService: the validation endpoints of
// collabs and the results they gave (docs/contracts-validation.md).
type validationServer struct {
	gatewayv1.UnimplementedValidationServiceServer
	endpoints *validation.Service
	payments  *payment.Service
}

var _ gatewayv1.ValidationServiceServer = (*validationServer)(nil)

// NewValidationServer returns the ValidationService implementation: the
// endpoints are served by endpoints, the results by payments.
func NewValidationServer(endpoints *validation.Service, payments *payment.Service) gatewayv1.ValidationServiceServer {
	return &validationServer{endpoints: endpoints, payments: payments}
}

// ListValidationEndpoints implements gatewayv1.ValidationServiceServer.
func (s *validationServer) ListValidationEndpoints(ctx context.Context, req *gatewayv1.ListValidationEndpointsRequest) (*gatewayv1.ListValidationEndpointsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	es, err := s.endpoints.Endpoints(ctx, scope, req.GetCollabId())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListValidationEndpointsResponse{Endpoints: make([]*gatewayv1.ValidationEndpoint, 0, len(es))}
	for _, e := range es {
		resp.Endpoints = append(resp.Endpoints, endpointToProto(e))
	}
	return resp, nil
}

// CreateValidationEndpoint implements gatewayv1.ValidationServiceServer.
func (s *validationServer) CreateValidationEndpoint(ctx context.Context, req *gatewayv1.CreateValidationEndpointRequest) (*gatewayv1.CreateValidationEndpointResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.endpoints.Create(ctx, actor, validation.NewEndpoint{
		CollabID: req.GetCollabId(), URL: req.GetUrl(), Priority: req.Priority,
		Awaitable: req.GetAwaitable(), ForCashIn: req.GetForCashIn(), ForCashOut: req.GetForCashOut(),
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CreateValidationEndpointResponse{Endpoint: endpointToProto(e)}, nil
}

// UpdateValidationEndpoint implements gatewayv1.ValidationServiceServer.
func (s *validationServer) UpdateValidationEndpoint(ctx context.Context, req *gatewayv1.UpdateValidationEndpointRequest) (*gatewayv1.UpdateValidationEndpointResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	e, err := s.endpoints.Update(ctx, actor, validation.Change{
		ID: req.GetId(), CollabID: req.CollabId, URL: req.Url, Priority: req.Priority,
		Awaitable: req.Awaitable, ForCashIn: req.ForCashIn, ForCashOut: req.ForCashOut,
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateValidationEndpointResponse{Endpoint: endpointToProto(e)}, nil
}

// DeleteValidationEndpoint implements gatewayv1.ValidationServiceServer.
func (s *validationServer) DeleteValidationEndpoint(ctx context.Context, req *gatewayv1.DeleteValidationEndpointRequest) (*gatewayv1.DeleteValidationEndpointResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.endpoints.Delete(ctx, actor, req.GetId()); err != nil {
		return nil, err
	}
	return &gatewayv1.DeleteValidationEndpointResponse{}, nil
}

// ListValidationResults implements gatewayv1.ValidationServiceServer.
func (s *validationServer) ListValidationResults(ctx context.Context, req *gatewayv1.ListValidationResultsRequest) (*gatewayv1.ListValidationResultsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := s.payments.ValidationResults(ctx, scope, req.GetId())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListValidationResultsResponse{Results: make([]*gatewayv1.ValidationResult, 0, len(rs))}
	for _, r := range rs {
		resp.Results = append(resp.Results, resultToProto(r))
	}
	return resp, nil
}

// SetValidationStatus implements gatewayv1.ValidationServiceServer.
func (s *validationServer) SetValidationStatus(ctx context.Context, req *gatewayv1.SetValidationStatusRequest) (*gatewayv1.SetValidationStatusResponse, error) {
	op, err := operatorOf(ctx)
	if err != nil {
		return nil, err
	}
	status, err := validation.ParseStatus(req.GetStatus())
	if err != nil {
		return nil, err
	}
	r, err := s.payments.SetValidationStatus(ctx, op, req.GetId(), status)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.SetValidationStatusResponse{Result: resultToProto(r)}, nil
}

// RetryValidation implements gatewayv1.ValidationServiceServer.
func (s *validationServer) RetryValidation(ctx context.Context, req *gatewayv1.RetryValidationRequest) (*gatewayv1.RetryValidationResponse, error) {
	op, err := operatorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.payments.RetryValidation(ctx, op, req.GetId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.RetryValidationResponse{Result: resultToProto(r)}, nil
}

func endpointToProto(e validation.Endpoint) *gatewayv1.ValidationEndpoint {
	return &gatewayv1.ValidationEndpoint{
		Id: e.ID, CollabId: e.CollabID, Url: e.URL, Priority: e.Priority, Awaitable: e.Awaitable,
		ForCashIn: e.ForCashIn, ForCashOut: e.ForCashOut, MerchantId: e.MerchantID,
	}
}

func resultToProto(r validation.Result) *gatewayv1.ValidationResult {
	return &gatewayv1.ValidationResult{
		ValidationId: r.ID, ValidationUrl: r.URL, Status: int32(r.Status), IsAwaitable: r.Awaitable,
		EndpointId: r.EndpointID, TransactionId: r.TransactionID, Priority: r.Priority,
		ResponseCode: r.ResponseCode, Message: r.Message, Attempts: r.Attempts, UpdatedUtc: timestamppb.New(r.UpdatedAt),
	}
}
