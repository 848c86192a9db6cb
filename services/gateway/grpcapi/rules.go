package grpcapi

import (
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/authz"
)

// Rules says who may call each GatewayService method.
var Rules = authz.Rules{
	// The sidebar lists the caller's merchants even while a temporary
	// password is being replaced; the list is the caller's own.
	gatewayv1.GatewayService_ListMerchants_FullMethodName: {Roles: authz.AllRoles, AllowTemporaryPassword: true},
}
