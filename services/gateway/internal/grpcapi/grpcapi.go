// Package grpcapi serves paygate.gateway.v1.GatewayService: it maps protos to
// the domain, and the caller's verified claims and client address to the
// actor of a change and its merchant scope.
package grpcapi

import (
	"context"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/server"
)

// Server implements gatewayv1.GatewayServiceServer.
type Server struct {
	gatewayv1.UnimplementedGatewayServiceServer
	merchants *merchant.Service
	collabs   *collab.Service
	payments  *payment.Service
	verifier  MerchantVerifier
}

var _ gatewayv1.GatewayServiceServer = (*Server)(nil)

// NewServer returns the GatewayService implementation; verifier reads the
// marker of merchant-signed payment calls (nil: only operators may start
// payments).
func NewServer(merchants *merchant.Service, collabs *collab.Service, payments *payment.Service, verifier MerchantVerifier) *Server {
	return &Server{merchants: merchants, collabs: collabs, payments: payments, verifier: verifier}
}

// ListMerchants returns every merchant to Admin and Support and the caller's
// own merchants to everyone else.
func (s *Server) ListMerchants(ctx context.Context, _ *gatewayv1.ListMerchantsRequest) (*gatewayv1.ListMerchantsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	ms, err := s.merchants.List(ctx, scope)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListMerchantsResponse{Merchants: make([]*gatewayv1.Merchant, 0, len(ms))}
	for _, m := range ms {
		resp.Merchants = append(resp.Merchants, &gatewayv1.Merchant{Id: m.ID, Name: m.Name, Hash: m.Hash})
	}
	return resp, nil
}

// scopeOf is the merchant scope of a caller.
func scopeOf(c *authz.Claims) merchant.Scope {
	return merchant.Scope{All: c.GlobalScope(), MerchantIDs: c.MerchantIDs}
}

// callerScope is the merchant scope of the signed-in caller.
func callerScope(ctx context.Context) (merchant.Scope, error) {
	claims, ok := authz.FromContext(ctx)
	if !ok {
		return merchant.Scope{}, apperr.Unauthenticated("Please sign in to continue.")
	}
	return scopeOf(claims), nil
}

// actorOf is the signed-in caller as the author of a change: who (from the
// token), from where (server.ClientInfo) and within which scope.
func actorOf(ctx context.Context) (activity.Actor, error) {
	claims, ok := authz.FromContext(ctx)
	if !ok {
		return activity.Actor{}, apperr.Unauthenticated("Please sign in to continue.")
	}
	id, err := claims.UserID()
	if err != nil {
		return activity.Actor{}, apperr.New(apperr.KindUnauthenticated, err, "Please sign in to continue.")
	}
	ip, ua := server.ClientInfo(ctx)
	return activity.Actor{UserID: id, Username: claims.Username, IP: ip, UserAgent: ua, Scope: scopeOf(claims)}, nil
}
