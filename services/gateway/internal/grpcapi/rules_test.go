package grpcapi_test

import (
	"testing"

	"google.golang.org/grpc"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/authz"
)

func TestRulesCoverEveryMethod(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	gatewayv1.RegisterMerchantServiceServer(srv, grpcapi.NewMerchantServer(merchant.NewService(nil)))
	gatewayv1.RegisterCollabServiceServer(srv, grpcapi.NewCollabServer(collab.NewService(nil, nil), maintenance.NewService(nil, nil), activity.NewLog(nil, nil)))
	gatewayv1.RegisterTransactionServiceServer(srv, grpcapi.NewTransactionServer(nil, nil))
	gatewayv1.RegisterValidationServiceServer(srv, grpcapi.NewValidationServer(nil, nil))
	gatewayv1.RegisterCurrencyServiceServer(srv, grpcapi.NewCurrencyServer(nil))
	gatewayv1.RegisterReplayServiceServer(srv, grpcapi.NewReplayServer(nil, nil))
	gatewayv1.RegisterFileServiceServer(srv, grpcapi.NewFileServer(nil))
	gatewayv1.RegisterSettingServiceServer(srv, grpcapi.NewSettingServer(nil))
	gatewayv1.RegisterFeeServiceServer(srv, grpcapi.NewFeeServer(nil))
	gatewayv1.RegisterPayTypeServiceServer(srv, grpcapi.NewPayTypeServer(nil))
	gatewayv1.RegisterFraudServiceServer(srv, grpcapi.NewFraudServer(nil))
	gatewayv1.RegisterCredentialServiceServer(srv, grpcapi.NewCredentialServer(nil))
	gatewayv1.RegisterBalanceServiceServer(srv, grpcapi.NewBalanceServer(nil))
	authz.CheckRulesCover(t, srv, grpcapi.Rules)
}
