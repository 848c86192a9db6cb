package grpcapi

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/types/known/structpb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/balance"
)

// balanceServer serves BalanceService: a collab's balance at its provider
// (docs/contracts-balances.md).
type balanceServer struct {
	gatewayv1.UnimplementedBalanceServiceServer
	balances *balance.Service
}

var _ gatewayv1.BalanceServiceServer = (*balanceServer)(nil)

// NewBalanceServer returns the BalanceService implementation.
func NewBalanceServer(balances *balance.Service) gatewayv1.BalanceServiceServer {
	return &balanceServer{balances: balances}
}

// ListBalanceCollabs implements gatewayv1.BalanceServiceServer.
func (s *balanceServer) ListBalanceCollabs(ctx context.Context, _ *gatewayv1.ListBalanceCollabsRequest) (*gatewayv1.ListBalanceCollabsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	ls, err := s.balances.Collabs(ctx, scope)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListBalanceCollabsResponse{Collabs: make([]*gatewayv1.BalanceCollab, 0, len(ls))}
	for _, l := range ls {
		resp.Collabs = append(resp.Collabs, &gatewayv1.BalanceCollab{CollabId: l.CollabID, MerchantId: l.MerchantID,
			MerchantName: l.MerchantName, ProviderId: l.ProviderID, ProviderName: l.ProviderName, ProviderPathSegment: l.PathSegment})
	}
	return resp, nil
}

// GetBalance implements gatewayv1.BalanceServiceServer.
func (s *balanceServer) GetBalance(ctx context.Context, req *gatewayv1.GetBalanceRequest) (*gatewayv1.GetBalanceResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	it, err := s.balances.Get(ctx, scope, req.GetProviderPathSegment(), req.GetCollabId())
	if err != nil {
		return nil, err
	}
	raw, err := structpb.NewValue(it.RawData)
	if err != nil {
		return nil, fmt.Errorf("balance answer to proto: %w", err)
	}
	return &gatewayv1.GetBalanceResponse{Balance: &gatewayv1.Balance{
		CollabId: it.CollabID, ProviderPathSegment: it.PathSegment, Amount: it.Amount, Currency: it.Currency,
		UpdatedAt: it.UpdatedAt, IsLive: it.IsLive, AccountId: it.AccountID, AccountType: it.AccountType,
		AdditionalBalances: it.AdditionalBalances, Status: it.Status, RawData: raw, Message: it.Message,
	}}, nil
}
