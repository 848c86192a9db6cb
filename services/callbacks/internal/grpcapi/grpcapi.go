// Package grpcapi serves paygate.callbacks.v1.CallbacksService: it maps
// protos to the domain, and the caller's verified claims and client address
// to the actor of a change and its merchant scope. (The client of the
// gateway that resolves collabs is package gatewayclient.)
package grpcapi

import (
	"context"
	"net/http"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/timestamppb"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/paging"
	"github.com/paygate/paygate/services/internal/server"
)

// Server implements callbacksv1.CallbacksServiceServer.
type Server struct {
	callbacksv1.UnimplementedCallbacksServiceServer
	svc *callback.Service
}

var _ callbacksv1.CallbacksServiceServer = (*Server)(nil)

// NewServer returns the CallbacksService implementation.
func NewServer(svc *callback.Service) *Server {
	return &Server{svc: svc}
}

// ListCollabCallbacks implements callbacksv1.CallbacksServiceServer.
func (s *Server) ListCollabCallbacks(ctx context.Context, req *callbacksv1.ListCollabCallbacksRequest) (*callbacksv1.ListCollabCallbacksResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	urls, err := s.svc.CollabURLs(ctx, scope, req.GetCollabId())
	if err != nil {
		return nil, err
	}
	return &callbacksv1.ListCollabCallbacksResponse{Callbacks: urlsToProto(urls)}, nil
}

// ListMerchantCallbacks implements callbacksv1.CallbacksServiceServer.
func (s *Server) ListMerchantCallbacks(ctx context.Context, req *callbacksv1.ListMerchantCallbacksRequest) (*callbacksv1.ListMerchantCallbacksResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	urls, err := s.svc.MerchantURLs(ctx, scope, req.GetMerchantId())
	if err != nil {
		return nil, err
	}
	return &callbacksv1.ListMerchantCallbacksResponse{Callbacks: urlsToProto(urls)}, nil
}

// CreateCallback implements callbacksv1.CallbacksServiceServer.
func (s *Server) CreateCallback(ctx context.Context, req *callbacksv1.CreateCallbackRequest) (*callbacksv1.CreateCallbackResponse, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	in := callback.Input{
		Enabled: req.IsEnabled, MaxAttempts: req.MaxAttempts,
		AddSignature: req.AddSignature, TransactionType: req.TransactionTypeId, FinalStatuses: req.GetFinalStatuses(),
	}
	if req.GetCollabId() != 0 {
		in.CollabID = &req.CollabId
	}
	if req.GetCallbackUrl() != "" {
		in.URL = &req.CallbackUrl
	}
	if len(req.GetHeaders()) > 0 {
		hs := headersFromProto(req.GetHeaders())
		in.Headers = &hs
	}
	u, err := s.svc.Create(ctx, a, in)
	if err != nil {
		return nil, err
	}
	return &callbacksv1.CreateCallbackResponse{Callback: urlToProto(u)}, nil
}

// UpdateCallback implements callbacksv1.CallbacksServiceServer.
func (s *Server) UpdateCallback(ctx context.Context, req *callbacksv1.UpdateCallbackRequest) (*callbacksv1.UpdateCallbackResponse, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	u, err := s.svc.Update(ctx, a, req.GetId(), callback.Input{
		CollabID: req.CollabId, URL: req.CallbackUrl, Enabled: req.IsEnabled, MaxAttempts: req.MaxAttempts,
		AddSignature: req.AddSignature, TransactionType: req.TransactionTypeId, FinalStatuses: req.GetFinalStatuses(),
	})
	if err != nil {
		return nil, err
	}
	return &callbacksv1.UpdateCallbackResponse{Callback: urlToProto(u)}, nil
}

// DeleteCallback implements callbacksv1.CallbacksServiceServer.
func (s *Server) DeleteCallback(ctx context.Context, req *callbacksv1.DeleteCallbackRequest) (*callbacksv1.DeleteCallbackResponse, error) {
	a, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.svc.Delete(ctx, a, req.GetId()); err != nil {
		return nil, err
	}
	return &callbacksv1.DeleteCallbackResponse{}, nil
}

// ListCallbackAttempts implements callbacksv1.CallbacksServiceServer.
func (s *Server) ListCallbackAttempts(ctx context.Context, req *callbacksv1.ListCallbackAttemptsRequest) (*callbacksv1.ListCallbackAttemptsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	page, take, err := paging.Resolve(req.Page, req.Take, callback.DefaultTake, callback.MaxTake)
	if err != nil {
		return nil, err
	}
	p, err := s.svc.Attempts(ctx, scope, req.GetId(), page, take)
	if err != nil {
		return nil, err
	}
	resp := &callbacksv1.ListCallbackAttemptsResponse{
		CallbackAttempts: make([]*callbacksv1.CallbackAttempt, 0, len(p.Attempts)),
		TotalCount:       p.TotalCount, CurrentPage: p.Page, TotalPages: p.TotalPages,
	}
	for _, a := range p.Attempts {
		resp.CallbackAttempts = append(resp.CallbackAttempts, attemptToProto(a))
	}
	return resp, nil
}

// ListAttemptsOfTransactions implements callbacksv1.CallbacksServiceServer:
// an internal call (its rule), so no user scope applies.
func (s *Server) ListAttemptsOfTransactions(ctx context.Context, req *callbacksv1.ListAttemptsOfTransactionsRequest) (*callbacksv1.ListAttemptsOfTransactionsResponse, error) {
	attempts, err := s.svc.AttemptsOfTransactions(ctx, req.GetTransactionIds())
	if err != nil {
		return nil, err
	}
	resp := &callbacksv1.ListAttemptsOfTransactionsResponse{Attempts: make([]*callbacksv1.CallbackAttempt, 0, len(attempts))}
	for _, a := range attempts {
		resp.Attempts = append(resp.Attempts, attemptToProto(a))
	}
	return resp, nil
}

// RetryCallbackAttempt implements callbacksv1.CallbacksServiceServer; REST
// answers 202.
func (s *Server) RetryCallbackAttempt(ctx context.Context, req *callbacksv1.RetryCallbackAttemptRequest) (*callbacksv1.RetryCallbackAttemptResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	a, err := s.svc.Retry(ctx, scope, req.GetId())
	if err != nil {
		return nil, err
	}
	accepted(ctx)
	return &callbacksv1.RetryCallbackAttemptResponse{Attempt: attemptToProto(a)}, nil
}

// EnqueueTransactionCallbacks implements callbacksv1.CallbacksServiceServer;
// REST answers 202.
func (s *Server) EnqueueTransactionCallbacks(ctx context.Context, req *callbacksv1.EnqueueTransactionCallbacksRequest) (*callbacksv1.EnqueueTransactionCallbacksResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	if len(req.GetIdempotencyKey()) > 100 {
		return nil, apperr.Invalid("idempotencyKey must be at most 100 characters.")
	}
	n, err := s.svc.Enqueue(ctx, scope, req.GetId(), req.GetIdempotencyKey())
	if err != nil {
		return nil, err
	}
	accepted(ctx)
	return &callbacksv1.EnqueueTransactionCallbacksResponse{Queued: int32(n)}, nil
}

// GetSigningSecret implements callbacksv1.CallbacksServiceServer.
func (s *Server) GetSigningSecret(ctx context.Context, req *callbacksv1.GetSigningSecretRequest) (*callbacksv1.GetSigningSecretResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	secret, err := s.svc.SigningSecret(ctx, scope, req.GetMerchantId())
	if err != nil {
		return nil, err
	}
	return &callbacksv1.GetSigningSecretResponse{Secret: secret}, nil
}

// RotateSigningSecret implements callbacksv1.CallbacksServiceServer.
func (s *Server) RotateSigningSecret(ctx context.Context, req *callbacksv1.RotateSigningSecretRequest) (*callbacksv1.RotateSigningSecretResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	secret, err := s.svc.RotateSigningSecret(ctx, scope, req.GetMerchantId(), req.OverlapHours)
	if err != nil {
		return nil, err
	}
	return &callbacksv1.RotateSigningSecretResponse{Secret: secret}, nil
}

// accepted asks REST (here, and on the gateway host that forwards the call)
// to answer 202.
func accepted(ctx context.Context) { server.SetHTTPStatus(ctx, http.StatusAccepted) }

func scopeOf(c *access.Claims) callback.Scope {
	return callback.Scope{All: c.GlobalScope(), MerchantIDs: c.MerchantIDs}
}

func callerScope(ctx context.Context) (callback.Scope, error) {
	claims, ok := access.FromContext(ctx)
	if !ok {
		return callback.Scope{}, apperr.Unauthenticated("Please sign in to continue.")
	}
	return scopeOf(claims), nil
}

// actorOf is the signed-in caller as the author of a change. A call the
// gateway host forwarded carries the browser's user agent as
// grpcgateway-user-agent; it is preferred to the gateway's own.
func actorOf(ctx context.Context) (callback.Actor, error) {
	claims, ok := access.FromContext(ctx)
	if !ok {
		return callback.Actor{}, apperr.Unauthenticated("Please sign in to continue.")
	}
	id, err := claims.UserID()
	if err != nil {
		return callback.Actor{}, apperr.New(apperr.KindUnauthenticated, err, "Please sign in to continue.")
	}
	ip, ua := server.ClientInfo(ctx)
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if fwd := md.Get("grpcgateway-user-agent"); len(fwd) > 0 && fwd[len(fwd)-1] != "" {
			ua = fwd[len(fwd)-1]
		}
	}
	return callback.Actor{UserID: id, Username: claims.Username, IP: ip, UserAgent: ua, Scope: scopeOf(claims)}, nil
}

func urlsToProto(urls []callback.URL) []*callbacksv1.Callback {
	out := make([]*callbacksv1.Callback, 0, len(urls))
	for _, u := range urls {
		out = append(out, urlToProto(u))
	}
	return out
}

func urlToProto(u callback.URL) *callbacksv1.Callback {
	c := &callbacksv1.Callback{
		Id: u.ID, CollabId: u.CollabID, CallbackUrl: u.URL, IsEnabled: u.Enabled, MaxAttempts: u.MaxAttempts,
		AddSignature: u.AddSignature, MerchantId: u.MerchantID,
		CreatedUtc: timestamppb.New(u.CreatedAt), UpdatedUtc: timestamppb.New(u.UpdatedAt),
	}
	if u.TransactionType != callback.TypeAll {
		t := u.TransactionType
		c.TransactionTypeId = &t
	}
	c.FinalStatuses = u.FinalStatuses.List()
	for _, h := range u.Headers {
		// A secret header's value is never answered.
		c.Headers = append(c.Headers, &callbacksv1.CallbackHeader{Name: h.Name, Value: h.Value, Secret: h.Secret})
	}
	if !u.DisabledAt.IsZero() {
		reason := u.DisabledReason
		c.DisabledReason, c.DisabledUtc = &reason, timestamppb.New(u.DisabledAt)
	}
	return c
}

func headersFromProto(hs []*callbacksv1.CallbackHeader) []callback.HeaderInput {
	out := make([]callback.HeaderInput, len(hs))
	for i, h := range hs {
		out[i] = callback.HeaderInput{Name: h.GetName(), Value: h.GetValue(), Secret: h.GetSecret()}
	}
	return out
}

func attemptToProto(a callback.Attempt) *callbacksv1.CallbackAttempt {
	return &callbacksv1.CallbackAttempt{
		Id: a.ID, CreatedUtc: timestamppb.New(a.CreatedAt), CallbackUrl: a.URL, RequestBody: a.RequestBody,
		ResponseCode: a.ResponseCode, CallbackAttemptStatus: string(a.Status), WebhookId: a.WebhookID,
		AttemptNumber: a.Number, ErrorMessage: a.ErrorMessage, TransactionId: a.TransactionID,
	}
}
