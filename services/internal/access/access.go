// Package access holds who a signed-in caller is and what they may reach:
// the access token's claims, the role and permission names, and the IP
// ranges an IP-restricted user may call from. It is values and pure
// functions only, so that domain packages (the auth service's identity and
// passkey) can use them without linking the gRPC interceptors, the Redis
// lists and the JWKS client of authz.
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

// Token versions: the ver claim says what the auth release that signed a
// token promises the services that check it, beyond the claims themselves.
// A service accepts tokens of every version the previous auth release signed
// (docs/releases.md), so each version's promise is kept here with what a
// checker does without it.
const (
	// TokenVersionRefills (1): the issuing auth keeps the revocations'
	// filled key in Redis (authz.RevocationsFilledKey), so a checker that
	// finds neither the session's revocation mark nor that key waits for the
	// refill and refuses the token when none comes. Tokens without a ver
	// claim (0) may come from an auth that never writes the key: for them an
	// absent mark means not revoked, as checkers did before the key.
	TokenVersionRefills = 1
	// TokenVersionScope (2): the token carries the role's scope flag
	// (globalScope). Before it, the only roles were the built-in ones and an
	// Admin or Support token saw every merchant; Claims.GlobalScope reads an
	// older token that way, so that a service of this release keeps serving
	// the previous auth's admins (docs/releases.md, N-1).
	TokenVersionScope = 2
	// TokenVersion is the version this release's auth signs.
	TokenVersion = TokenVersionScope
)

// Names of the built-in roles (BuiltInRoles), exactly as stored and as they
// appear in tokens. Tokens carry role names for display only: no access
// decision reads them (docs/access.md).
const (
	RoleAdmin                  = "Admin"
	RoleSupport                = "Support"
	RoleMerchant               = "Merchant"
	RoleMerchantAdmin          = "Merchant Admin"
	RoleMerchantFinanceManager = "Merchant Finance Manager"
	RoleMerchantSupport        = "Merchant Support"
)

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
	// Roles of the user, by name: for display only.
	Roles []string `json:"roles"`
	// Permissions granted by the roles.
	Permissions []string `json:"permissions"`
	// Global is the role's scope flag: true when the user sees every
	// merchant (admin-wide), false when it is limited to MerchantIDs. Read
	// it through GlobalScope, which also reads tokens from before the flag.
	Global bool `json:"globalScope"`
	// MerchantIDs are the merchants the user belongs to.
	MerchantIDs []int32 `json:"merchantIds"`
	// IsTemporaryPassword is true until the user replaces a temporary password.
	IsTemporaryPassword bool `json:"isTemporaryPassword"`
	// SessionID identifies the session; revoking it invalidates the token.
	SessionID string `json:"sid"`
	// IPRestricted is true when the user may call only from its allowed IP
	// ranges (checked on every call, see WithAllowLists).
	IPRestricted bool `json:"ipr,omitempty"`
	// Version is the token version (TokenVersion and the constants before
	// it); 0 for tokens of auth releases before the claim.
	Version int `json:"ver,omitempty"`
	// Confirm lists the sensitive actions (services/internal/sensitive) this
	// user must confirm: a call performing one of them needs a confirmation
	// token (docs/contracts-approvals.md). Auth computes it at each token from
	// the step-up setting and the approval policies; tokens of older auth
	// releases have none.
	Confirm []string `json:"cfm,omitempty"`
}

// MustConfirm reports whether the caller must confirm the sensitive action name.
func (c *Claims) MustConfirm(name string) bool { return slices.Contains(c.Confirm, name) }

// HasPermission reports whether the caller has any of perms.
func (c *Claims) HasPermission(perms ...string) bool {
	return slices.ContainsFunc(perms, func(p string) bool { return slices.Contains(c.Permissions, p) })
}

// GlobalScope reports whether the caller sees every merchant: its role's
// scope flag, never its name. A token older than TokenVersionScope has no
// flag: it was signed by an auth release whose only roles were the built-in
// ones, and of those Admin and Support saw every merchant.
func (c *Claims) GlobalScope() bool {
	if c.Version >= TokenVersionScope {
		return c.Global
	}
	return c.Global || slices.Contains(c.Roles, RoleAdmin) || slices.Contains(c.Roles, RoleSupport)
}

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
