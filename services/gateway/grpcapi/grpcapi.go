// Package grpcapi serves paygate.gateway.v1.GatewayService: it maps protos to
// the domain and the caller's verified claims to a merchant scope.
package grpcapi

import (
	"context"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
)

// Server implements gatewayv1.GatewayServiceServer.
type Server struct {
	gatewayv1.UnimplementedGatewayServiceServer
	merchants *merchant.Service
}

var _ gatewayv1.GatewayServiceServer = (*Server)(nil)

// NewServer returns the GatewayService implementation.
func NewServer(merchants *merchant.Service) *Server {
	return &Server{merchants: merchants}
}

// ListMerchants returns every merchant to Admin and Support and the caller's
// own merchants to everyone else.
func (s *Server) ListMerchants(ctx context.Context, _ *gatewayv1.ListMerchantsRequest) (*gatewayv1.ListMerchantsResponse, error) {
	claims, ok := authz.FromContext(ctx)
	if !ok {
		return nil, apperr.Unauthenticated("Please sign in to continue.")
	}
	ms, err := s.merchants.List(ctx, scopeOf(claims))
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
