// Package authz verifies access tokens and enforces each RPC's permission
// rule. The auth service signs tokens (EdDSA, header kid); every service,
// auth included, verifies them here and checks the caller against a Rules
// table keyed by full gRPC method name, denying any method without a rule.
//
// The claims, role and permission names live in package access (no I/O);
// authz re-exports them so that a rules table reads authz.PermEditUser.
package authz

import (
	"context"

	"github.com/paygate/paygate/services/internal/access"
)

// Token issuer, audience, role and permission names (package access).
const (
	Issuer                     = access.Issuer
	Audience                   = access.Audience
	RoleAdmin                  = access.RoleAdmin
	RoleSupport                = access.RoleSupport
	RoleMerchant               = access.RoleMerchant
	RoleMerchantAdmin          = access.RoleMerchantAdmin
	RoleMerchantFinanceManager = access.RoleMerchantFinanceManager
	RoleMerchantSupport        = access.RoleMerchantSupport
	PermDashboardAccess        = access.PermDashboardAccess
	PermStatisticsAccess       = access.PermStatisticsAccess
	PermGetTransactions        = access.PermGetTransactions
	PermCreateTransactions     = access.PermCreateTransactions
	PermEditTransactions       = access.PermEditTransactions
	PermViewLogs               = access.PermViewLogs
	PermGetProviders           = access.PermGetProviders
	PermGoVipAccess            = access.PermGoVipAccess
	PermQRPhAccess             = access.PermQRPhAccess
	PermFbPayAccess            = access.PermFbPayAccess
	PermHumPasAccess           = access.PermHumPasAccess
	PermCryptoManagerAccess    = access.PermCryptoManagerAccess
	PermCryptoSenderAccess     = access.PermCryptoSenderAccess
	PermRollingPayAccess       = access.PermRollingPayAccess
	PermAllowIP                = access.PermAllowIP
	PermCredentialsAccess      = access.PermCredentialsAccess
	PermBalanceAccess          = access.PermBalanceAccess
	PermSettingsAccess         = access.PermSettingsAccess
	PermJobsAccess             = access.PermJobsAccess
	PermEditCollab             = access.PermEditCollab
	PermViewFrauds             = access.PermViewFrauds
	PermEditFrauds             = access.PermEditFrauds
	PermCancelCallbacks        = access.PermCancelCallbacks
	PermFilesAccess            = access.PermFilesAccess
	PermViewRecentActions      = access.PermViewRecentActions
	PermViewFees               = access.PermViewFees
	PermEditFees               = access.PermEditFees
	PermEditMaintenanceMode    = access.PermEditMaintenanceMode
	PermAddUsers               = access.PermAddUsers
	PermEditUser               = access.PermEditUser
)

// Role and permission lists (package access).
var (
	AllRoles       = access.AllRoles
	GlobalRoles    = access.GlobalRoles
	AllPermissions = access.AllPermissions
)

// Claims are the claims of an access token (access.Claims).
type Claims = access.Claims

// NewContext returns ctx carrying claims. The interceptor does this for every
// authenticated call; tests may too.
func NewContext(ctx context.Context, claims *Claims) context.Context {
	return access.NewContext(ctx, claims)
}

// FromContext returns the verified claims of the caller, if any.
func FromContext(ctx context.Context) (*Claims, bool) { return access.FromContext(ctx) }
