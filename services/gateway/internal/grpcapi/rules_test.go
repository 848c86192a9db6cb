package grpcapi_test

import (
	"slices"
	"testing"

	"google.golang.org/grpc"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

func TestRulesCoverEveryMethod(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	gatewayv1.RegisterMerchantServiceServer(srv, grpcapi.NewMerchantServer(merchant.NewService(nil), nil))
	gatewayv1.RegisterCollabServiceServer(srv, grpcapi.NewCollabServer(collab.NewService(nil, nil), maintenance.NewService(nil, nil), activity.NewLog(nil, nil)))
	gatewayv1.RegisterMaintenanceServiceServer(srv, grpcapi.NewMaintenanceServer(maintenance.NewService(nil, nil)))
	gatewayv1.RegisterActivityServiceServer(srv, grpcapi.NewActivityServer(activity.NewLog(nil, nil)))
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
	gatewayv1.RegisterRadarServiceServer(srv, grpcapi.NewRadarServer(nil))
	gatewayv1.RegisterWatchlistServiceServer(srv, grpcapi.NewWatchlistServer(nil))
	gatewayv1.RegisterBulkServiceServer(srv, grpcapi.NewBulkServer(nil))
	gatewayv1.RegisterViewServiceServer(srv, grpcapi.NewViewServer(nil))
	authz.CheckRulesCover(t, srv, grpcapi.Rules)
}

// TestRulesTreatCustomRolesAsBuiltIn: a custom role with a built-in role's
// flag and permissions gets exactly its access (docs/access.md).
func TestRulesTreatCustomRolesAsBuiltIn(t *testing.T) {
	t.Parallel()
	authz.CheckCustomTwins(t, grpcapi.Rules)
}

// TestRulesOfTheSpecsRoles pins the rules that named roles before they were
// restated as requirements: each admits exactly the built-in roles it named.
func TestRulesOfTheSpecsRoles(t *testing.T) {
	t.Parallel()
	admin := []string{access.RoleAdmin}
	admins := []string{access.RoleAdmin, access.RoleMerchantAdmin}
	tests := []struct {
		method string
		want   []string
	}{
		{gatewayv1.MerchantService_ListMerchants_FullMethodName, []string{access.RoleAdmin, access.RoleSupport, access.RoleMerchant,
			access.RoleMerchantAdmin, access.RoleMerchantFinanceManager, access.RoleMerchantSupport}},
		{gatewayv1.MerchantService_CreateMerchant_FullMethodName, admin},
		{gatewayv1.MerchantService_UpdateMerchant_FullMethodName, admin},
		{gatewayv1.MerchantService_ListMerchantSecrets_FullMethodName, admins},
		{gatewayv1.MerchantService_CreateMerchantSecret_FullMethodName, admins},
		{gatewayv1.MerchantService_RevokeMerchantSecret_FullMethodName, admins},
		{gatewayv1.CollabService_SetProviderActiveness_FullMethodName, admin},
		{gatewayv1.CollabService_InitializeCollab_FullMethodName, []string{access.RoleAdmin, access.RoleMerchant, access.RoleMerchantAdmin}},
		{gatewayv1.CurrencyService_SetCurrencyRate_FullMethodName, admin},
		{gatewayv1.SettingService_SetSetting_FullMethodName, admin},
		{gatewayv1.BalanceService_GetBalance_FullMethodName, []string{access.RoleAdmin, access.RoleMerchant, access.RoleMerchantAdmin,
			access.RoleMerchantFinanceManager}},
		{gatewayv1.BalanceService_ListBalanceCollabs_FullMethodName, []string{access.RoleAdmin, access.RoleMerchant, access.RoleMerchantAdmin,
			access.RoleMerchantFinanceManager}},
		{gatewayv1.ValidationService_ListValidationEndpoints_FullMethodName, admins},
		{gatewayv1.ValidationService_CreateValidationEndpoint_FullMethodName, admins},
		{gatewayv1.ValidationService_UpdateValidationEndpoint_FullMethodName, admins},
		{gatewayv1.ValidationService_DeleteValidationEndpoint_FullMethodName, admins},
	}
	for _, tt := range tests {
		if got := authz.Admitted(grpcapi.Rules[tt.method]); !slices.Equal(got, tt.want) {
			t.Errorf("%s admits %v, want %v", tt.method, got, tt.want)
		}
	}
}
