package main

import (
	"context"
	"time"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/fee"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/merchantadmin"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
)

// The areas behind the providers remote's screens: merchants, providers and
// collabs with the maintenance switch and the activity log, settings, fees,
// credentials and balances.

// wireMerchants serves the merchants (docs/contracts-merchants.md).
func (g *gateway) wireMerchants(context.Context) error {
	g.srv.Register(&gatewayv1.MerchantService_ServiceDesc, grpcapi.NewMerchantServer(merchant.NewService(g.store),
		merchantadmin.NewService(postgres.NewMerchants(g.Pool), func(value []byte, merchantID int32) ([]byte, error) {
			return g.box.Seal(value, payment.MerchantSecretOwner(merchantID))
		}, time.Now)))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterMerchantServiceHandlerClient, gatewayv1.NewMerchantServiceClient))
	return nil
}

// wireCollabs serves the providers and collabs, the maintenance switch and
// the activity log (docs/contracts-providers.md).
func (g *gateway) wireCollabs(context.Context) error {
	g.collabs = collab.NewService(g.store, time.Now)
	maint := maintenance.NewService(postgres.NewMaintenance(g.store, g.store), time.Now)
	activityLog := activity.NewLog(g.store, time.Now)
	g.confirmations.Observe(grpcapi.MethodSetCollabActiveness, grpcapi.ObserveCollab(g.collabs))
	g.confirmations.Observe(grpcapi.MethodSetProviderActiveness, grpcapi.ObserveProvider(g.collabs))
	for _, m := range []string{grpcapi.MethodEnableMaintenance, grpcapi.MethodDisableMaintenance,
		grpcapi.MethodEnableMaintenanceOld, grpcapi.MethodDisableMaintenanceOld} {
		g.confirmations.Observe(m, grpcapi.ObserveMaintenance(maint))
	}
	g.srv.Register(&gatewayv1.CollabService_ServiceDesc, grpcapi.NewCollabServer(g.collabs, maint, activityLog))
	g.srv.Register(&gatewayv1.MaintenanceService_ServiceDesc, grpcapi.NewMaintenanceServer(maint))
	g.srv.Register(&gatewayv1.ActivityService_ServiceDesc, grpcapi.NewActivityServer(activityLog))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterCollabServiceHandlerClient, gatewayv1.NewCollabServiceClient))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterMaintenanceServiceHandlerClient, gatewayv1.NewMaintenanceServiceClient))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterActivityServiceHandlerClient, gatewayv1.NewActivityServiceClient))
	return nil
}

// wireSettings serves the live settings (docs/contracts-settings.md), which
// newGateway made for the areas that read them.
func (g *gateway) wireSettings(context.Context) error {
	g.srv.Register(&gatewayv1.SettingService_ServiceDesc, grpcapi.NewSettingServer(g.tunables))
	g.confirmations.Observe(grpcapi.MethodSetSetting, grpcapi.ObserveSetting(g.tunables))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterSettingServiceHandlerClient, gatewayv1.NewSettingServiceClient))
	return nil
}

// wireFees serves the fees and the pay types' names
// (docs/contracts-fees.md).
func (g *gateway) wireFees(context.Context) error {
	fees := fee.NewService(postgres.NewFees(g.Pool).WithReads(g.ReadPool), time.Now)
	g.srv.Register(&gatewayv1.FeeService_ServiceDesc, grpcapi.NewFeeServer(fees))
	g.confirmations.Observe(grpcapi.MethodUpdateFee, grpcapi.ObserveFee(fees))
	g.confirmations.Observe(grpcapi.MethodDeleteFee, grpcapi.ObserveFee(fees))
	g.srv.Register(&gatewayv1.PayTypeService_ServiceDesc, grpcapi.NewPayTypeServer(fees))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterFeeServiceHandlerClient, gatewayv1.NewFeeServiceClient))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterPayTypeServiceHandlerClient, gatewayv1.NewPayTypeServiceClient))
	return nil
}

// wireCredentials serves the providers' credentials
// (docs/contracts-credentials.md), which newGateway made for the payment
// path and the balances, and re-seals them under the current key.
func (g *gateway) wireCredentials(context.Context) error {
	g.srv.Register(&gatewayv1.CredentialService_ServiceDesc, grpcapi.NewCredentialServer(g.credentials))
	g.confirmations.Observe(grpcapi.MethodSetCredentials, grpcapi.ObserveCredentials(g.credentials))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterCredentialServiceHandlerClient, gatewayv1.NewCredentialServiceClient))
	return g.Jobs.Add(credentialsResealJob(g.credentials))
}

// wireBalances serves the providers' balances (docs/contracts-balances.md),
// cached for the BalanceCacheSeconds setting.
func (g *gateway) wireBalances(context.Context) error {
	balances := balanceService(g.cfg, g.Pool, g.Redis, g.providerTransport, g.credentials, g.tunables.BalanceCacheTTL)
	g.srv.Register(&gatewayv1.BalanceService_ServiceDesc, grpcapi.NewBalanceServer(balances))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterBalanceServiceHandlerClient, gatewayv1.NewBalanceServiceClient))
	return nil
}
