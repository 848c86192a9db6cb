package grpcapi

import (
	"context"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
)

// merchantServer serves MerchantService (docs/contracts-merchants.md).
type merchantServer struct {
	gatewayv1.UnimplementedMerchantServiceServer
	merchants *merchant.Service
}

var _ gatewayv1.MerchantServiceServer = (*merchantServer)(nil)

// NewMerchantServer returns the MerchantService implementation.
func NewMerchantServer(merchants *merchant.Service) gatewayv1.MerchantServiceServer {
	return &merchantServer{merchants: merchants}
}

// ListMerchants returns every merchant to Admin and Support and the caller's
// own merchants to everyone else.
func (s *merchantServer) ListMerchants(ctx context.Context, _ *gatewayv1.ListMerchantsRequest) (*gatewayv1.ListMerchantsResponse, error) {
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
