// Package access holds who a signed-in caller is and what they may reach:
// the access token's claims, the role and permission names, and the IP
// ranges an IP-restricted user may call from. It is values and pure
// functions only, so that domain packages (the auth service's identity and
// passkey) can use them without linking the gRPC interceptors, the Redis
// lists and the JWKS client of authz, which re-exports these names.
package access

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/golang-jwt/jwt/v5"
)

// Token issuer and audience (docs/contracts.md).
const (
	// Issuer is the iss claim of every access token.
	Issuer = "paygate-auth"
	// Audience is the aud claim of every access token.
	Audience = "paygate"
)

// Role names, exactly as stored and as they appear in tokens.
const (
	RoleAdmin                  = "Admin"
	RoleSupport                = "Support"
	RoleMerchant               = "Merchant"
	RoleMerchantAdmin          = "Merchant Admin"
	RoleMerchantFinanceManager = "Merchant Finance Manager"
	RoleMerchantSupport        = "Merchant Support"
)

// AllRoles lists every role.
var AllRoles = []string{
	RoleAdmin, RoleSupport, RoleMerchant, RoleMerchantAdmin,
	RoleMerchantFinanceManager, RoleMerchantSupport,
}

// GlobalRoles see every merchant; all other roles are limited to their
// merchantIds.
var GlobalRoles = []string{RoleAdmin, RoleSupport}

// Permission names, exactly as stored and as they appear in tokens.
const (
	PermDashboardAccess     = "Dashboard Access"
	PermStatisticsAccess    = "Statistics Access"
	PermGetTransactions     = "Get Transactions"
	PermCreateTransactions  = "Create Transactions"
	PermEditTransactions    = "Edit Transactions"
	PermViewLogs            = "View Logs"
	PermGetProviders        = "Get Providers"
	PermGoVipAccess         = "GoVip Access"
	PermQRPhAccess          = "QRPh Access"
	PermFbPayAccess         = "FbPay Access"
	PermHumPasAccess        = "HumPas Access"
	PermCryptoManagerAccess = "Crypto Manager Access"
	PermCryptoSenderAccess  = "Crypto Sender Access"
	PermRollingPayAccess    = "RollingPay Access"
	PermAllowIP             = "Allow IP"
	PermCredentialsAccess   = "Credentials Access"
	PermBalanceAccess       = "Balance Access"
	PermSettingsAccess      = "Settings Access"
	PermJobsAccess          = "Jobs Access"
	PermEditCollab          = "Edit Collab"
	PermViewFrauds          = "View Frauds"
	PermEditFrauds          = "Edit Frauds"
	PermCancelCallbacks     = "Cancel Callbacks"
	PermFilesAccess         = "Files Access"
	PermViewRecentActions   = "View Recent Actions"
	PermViewFees            = "View Fees"
	PermEditFees            = "Edit Fees"
	PermEditMaintenanceMode = "Edit Maintenance Mode"
	PermAddUsers            = "Add Users"
	PermEditUser            = "Edit User"
)

// AllPermissions lists every permission, in the order of docs/contracts.md.
var AllPermissions = []string{
	PermDashboardAccess, PermStatisticsAccess, PermGetTransactions,
	PermCreateTransactions, PermEditTransactions, PermViewLogs,
	PermGetProviders, PermGoVipAccess, PermQRPhAccess, PermFbPayAccess,
	PermHumPasAccess, PermCryptoManagerAccess, PermCryptoSenderAccess,
	PermRollingPayAccess, PermAllowIP, PermCredentialsAccess,
	PermBalanceAccess, PermSettingsAccess, PermJobsAccess, PermEditCollab,
	PermViewFrauds, PermEditFrauds, PermCancelCallbacks, PermFilesAccess,
	PermViewRecentActions, PermViewFees, PermEditFees,
	PermEditMaintenanceMode, PermAddUsers, PermEditUser,
}

// Claims are the claims of an access token (docs/contracts.md).
type Claims struct {
	jwt.RegisteredClaims
	// Username of the user.
	Username string `json:"username"`
	// Roles of the user.
	Roles []string `json:"roles"`
	// Permissions granted by the roles.
	Permissions []string `json:"permissions"`
	// MerchantIDs are the merchants the user belongs to.
	MerchantIDs []int32 `json:"merchantIds"`
	// IsTemporaryPassword is true until the user replaces a temporary password.
	IsTemporaryPassword bool `json:"isTemporaryPassword"`
	// SessionID identifies the session; revoking it invalidates the token.
	SessionID string `json:"sid"`
	// IPRestricted is true when the user may call only from its allowed IP
	// ranges (checked on every call, see WithAllowLists).
	IPRestricted bool `json:"ipr,omitempty"`
}

// HasRole reports whether the caller has any of roles.
func (c *Claims) HasRole(roles ...string) bool {
	return slices.ContainsFunc(roles, func(r string) bool { return slices.Contains(c.Roles, r) })
}

// HasPermission reports whether the caller has any of perms.
func (c *Claims) HasPermission(perms ...string) bool {
	return slices.ContainsFunc(perms, func(p string) bool { return slices.Contains(c.Permissions, p) })
}

// GlobalScope reports whether the caller sees every merchant (Admin or Support).
func (c *Claims) GlobalScope() bool { return c.HasRole(GlobalRoles...) }

// CanAccessMerchant reports whether the caller may see merchant id: always
// with global scope, otherwise only for the caller's own merchants.
func (c *Claims) CanAccessMerchant(id int32) bool {
	return c.GlobalScope() || slices.Contains(c.MerchantIDs, id)
}

// UserID returns the numeric user id carried in sub.
func (c *Claims) UserID() (int64, error) {
	id, err := strconv.ParseInt(c.Subject, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("token subject %q is not a user id: %w", c.Subject, err)
	}
	return id, nil
}

type claimsKey struct{}

// NewContext returns ctx carrying claims. The interceptor does this for every
// authenticated call; tests may too.
func NewContext(ctx context.Context, claims *Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, claims)
}

// FromContext returns the verified claims of the caller, if any.
func FromContext(ctx context.Context) (*Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(*Claims)
	return c, ok && c != nil
}
