package grpcapi_test

import (
	"testing"

	"google.golang.org/grpc"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/authz"
)

func TestRulesCoverEveryMethod(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	gatewayv1.RegisterGatewayServiceServer(srv, grpcapi.NewServer(merchant.NewService(nil), collab.NewService(nil, nil), nil, nil))
	authz.CheckRulesCover(t, srv, grpcapi.Rules)
}
