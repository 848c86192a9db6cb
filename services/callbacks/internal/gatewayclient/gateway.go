// Package gatewayclient is the callbacks service's client of the gateway:
// it resolves collabs to their merchants, and tells whether a merchant
// exists, over gRPC with the caller's own token, so that the gateway's
// scope rules decide.
package gatewayclient

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/apperr"
)

// GatewayCollabs resolves collabs with the gateway's GetCollab, forwarding
// the caller's own authorization, so that the gateway's scope rules decide
// (a collab outside the caller's scope is not found).
type GatewayCollabs struct {
	client  gatewayv1.CollabServiceClient
	timeout time.Duration
}

var _ callback.Collabs = (*GatewayCollabs)(nil)

// NewGatewayCollabs returns a resolver calling client, each call bounded by
// timeout.
func NewGatewayCollabs(client gatewayv1.CollabServiceClient, timeout time.Duration) *GatewayCollabs {
	return &GatewayCollabs{client: client, timeout: timeout}
}

// forward returns ctx for an outgoing call carrying the caller's own
// authorization, bounded by timeout.
func forward(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc, error) {
	in, _ := metadata.FromIncomingContext(ctx)
	auth := in.Get("authorization")
	if len(auth) == 0 {
		return nil, nil, apperr.Unauthenticated("Please sign in to continue.")
	}
	out := metadata.NewOutgoingContext(ctx, metadata.Pairs("authorization", auth[len(auth)-1]))
	out, cancel := context.WithTimeout(out, timeout)
	return out, cancel, nil
}

// MerchantOf implements callback.Collabs.
func (g *GatewayCollabs) MerchantOf(ctx context.Context, collabID int32) (int32, error) {
	out, cancel, err := forward(ctx, g.timeout)
	if err != nil {
		return 0, err
	}
	defer cancel()
	resp, err := g.client.GetCollab(out, &gatewayv1.GetCollabRequest{CollabId: collabID})
	if err != nil {
		switch status.Code(err) {
		case codes.NotFound, codes.PermissionDenied:
			return 0, apperr.New(apperr.KindNotFound, err, "Collab %d was not found.", collabID)
		case codes.Unauthenticated:
			return 0, apperr.New(apperr.KindUnauthenticated, err, "Please sign in to continue.")
		case codes.InvalidArgument:
			return 0, apperr.New(apperr.KindInvalid, err, "Collab %d is not valid.", collabID)
		}
		return 0, fmt.Errorf("resolve collab %d with the gateway: %w", collabID, err)
	}
	m := resp.GetCollab().GetMerchant().GetId()
	if m == 0 {
		return 0, fmt.Errorf("gateway answered collab %d without a merchant", collabID)
	}
	return m, nil
}

// GatewayMerchants tells whether a merchant exists with the gateway's
// ListMerchants, forwarding the caller's own authorization: a merchant the
// gateway does not list to the caller does not exist for it.
type GatewayMerchants struct {
	client  gatewayv1.MerchantServiceClient
	timeout time.Duration
}

var _ callback.Merchants = (*GatewayMerchants)(nil)

// NewGatewayMerchants returns a directory calling client, each call bounded
// by timeout.
func NewGatewayMerchants(client gatewayv1.MerchantServiceClient, timeout time.Duration) *GatewayMerchants {
	return &GatewayMerchants{client: client, timeout: timeout}
}

// Exists implements callback.Merchants.
func (g *GatewayMerchants) Exists(ctx context.Context, merchantID int32) (bool, error) {
	out, cancel, err := forward(ctx, g.timeout)
	if err != nil {
		return false, err
	}
	defer cancel()
	resp, err := g.client.ListMerchants(out, &gatewayv1.ListMerchantsRequest{})
	if err != nil {
		switch status.Code(err) {
		case codes.PermissionDenied, codes.NotFound:
			return false, nil
		case codes.Unauthenticated:
			return false, apperr.New(apperr.KindUnauthenticated, err, "Please sign in to continue.")
		}
		return false, fmt.Errorf("list merchants with the gateway: %w", err)
	}
	for _, m := range resp.GetMerchants() {
		if m.GetId() == merchantID {
			return true, nil
		}
	}
	return false, nil
}
