package access

import "slices"

// Scope is the scope a line of a Requirement asks for.
type Scope string

// Scopes of a requirement's line.
const (
	// ScopeAny admits admin-wide and merchant-scoped callers alike.
	ScopeAny Scope = ""
	// ScopeGlobal admits only callers who see every merchant (admin-wide).
	ScopeGlobal Scope = "global"
	// ScopeMerchant admits only callers limited to their own merchants.
	ScopeMerchant Scope = "merchant"
)

// Grant is one line of a Requirement: a scope and permissions, every one of
// which the caller must hold.
type Grant struct {
	Scope       Scope
	Permissions []string
}

// Requirement is a rule of the spec that names roles ("Merchants: Admin"),
// restated once in permissions and the scope flag (docs/access.md
// "Requirements"): a caller meets it when it meets any one of its lines.
// Rules (authz.Rule.Requires), handlers and the console
// (shell/sdk/src/call-rules/requirements.gen.ts) use these and never a role's
// name.
type Requirement struct {
	// Name is the requirement's key in docs/access.md and in the console.
	Name string
	// AnyOf are the lines; one suffices.
	AnyOf []Grant
}

// IsZero reports whether r is the empty requirement (none set).
func (r Requirement) IsZero() bool { return r.Name == "" && len(r.AnyOf) == 0 }

// MetBy reports whether the caller of c meets r.
func (r Requirement) MetBy(c *Claims) bool {
	return c != nil && r.Holds(c.GlobalScope(), c.Permissions)
}

// Holds reports whether a holder of the scope flag global and of perms meets
// r (a role, or a user as stored).
func (r Requirement) Holds(global bool, perms []string) bool {
	for _, g := range r.AnyOf {
		if g.Scope == ScopeGlobal && !global || g.Scope == ScopeMerchant && global {
			continue
		}
		if !slices.ContainsFunc(g.Permissions, func(p string) bool { return !slices.Contains(perms, p) }) {
			return true
		}
	}
	return false
}

func line(scope Scope, perms ...string) Grant { return Grant{Scope: scope, Permissions: perms} }

// The requirements of docs/access.md, each with the spec rule it restates.
var (
	// ReqAllMerchants: the Merchants page and the merchant-wide views of
	// the pages (spec: "admin only"), and switching a whole provider.
	ReqAllMerchants = Requirement{Name: "allMerchants", AnyOf: []Grant{line(ScopeGlobal, PermEditCollab)}}
	// ReqAddCollabs: the Providers page's Add ("admin or merchant").
	ReqAddCollabs = Requirement{Name: "addCollabs", AnyOf: []Grant{
		line(ScopeGlobal, PermEditCollab),
		line(ScopeMerchant, PermGetProviders, PermViewRecentActions),
	}}
	// ReqCallbacksAndValidation: the Callbacks and Validation Endpoints
	// pages ("Admin or Merchant Admin").
	ReqCallbacksAndValidation = Requirement{Name: "callbacksAndValidation", AnyOf: []Grant{line(ScopeAny, PermEditCollab)}}
	// ReqCreateTransaction: Create Transaction ("role Admin"; Create
	// Transactions for the sidebar).
	ReqCreateTransaction = Requirement{Name: "createTransaction", AnyOf: []Grant{line(ScopeGlobal, PermCreateTransactions)}}
	// ReqPlatformSettings: changing a setting or a currency rate ("Admin").
	ReqPlatformSettings = Requirement{Name: "platformSettings", AnyOf: []Grant{line(ScopeGlobal, PermSettingsAccess)}}
	// ReqChangeJobs: switching a background job on or off ("Admin").
	ReqChangeJobs = Requirement{Name: "changeJobs", AnyOf: []Grant{line(ScopeGlobal, PermJobsAccess, PermSettingsAccess)}}
	// ReqBalances: Balances ("admin or merchant and Balance Access").
	ReqBalances = Requirement{Name: "balances", AnyOf: []Grant{
		line(ScopeMerchant, PermBalanceAccess),
		line(ScopeGlobal, PermBalanceAccess, PermCredentialsAccess),
	}}
	// ReqGlobalFees: changing a fee without a collab ("Admin").
	ReqGlobalFees = Requirement{Name: "globalFees", AnyOf: []Grant{line(ScopeGlobal, PermEditFees)}}
	// ReqAdminOrMerchant: the spec's "admin or merchant" (the sidebar's
	// Documentation link, the sessions list's auto-refresh): Support is left
	// out.
	ReqAdminOrMerchant = Requirement{Name: "adminOrMerchant", AnyOf: []Grant{
		line(ScopeMerchant),
		line(ScopeGlobal, PermEditCollab),
	}}
	// ReqManageRoles: creating, editing and deleting roles.
	ReqManageRoles = Requirement{Name: "manageRoles", AnyOf: []Grant{line(ScopeGlobal, PermAddUsers, PermEditUser)}}
	// ReqSecurityPolicy: (new) the step-up setting and the four-eyes approval policies
	// (docs/contracts-approvals.md): they decide who must prove what for every change.
	ReqSecurityPolicy = Requirement{Name: "securityPolicy", AnyOf: []Grant{line(ScopeGlobal, PermSettingsAccess, PermEditUser)}}
)

// Requirements lists every requirement, in the order of docs/access.md.
var Requirements = []Requirement{
	ReqAllMerchants, ReqAddCollabs, ReqCallbacksAndValidation, ReqCreateTransaction, ReqPlatformSettings,
	ReqChangeJobs, ReqBalances, ReqGlobalFees, ReqAdminOrMerchant, ReqManageRoles, ReqSecurityPolicy,
}

// BuiltInRole is one of the six roles of the seed (migration 0001, scope
// flags by 0007): read-only, the same in every deployment.
type BuiltInRole struct {
	ID          int32
	Name        string
	Global      bool
	Permissions []string
}

var merchantGrants = []string{
	PermDashboardAccess, PermStatisticsAccess, PermGetTransactions, PermGetProviders,
	PermBalanceAccess, PermFilesAccess, PermViewRecentActions, PermViewFees,
}

// BuiltInRoles are the built-in roles with their grants (docs/contracts.md
// "Roles and permissions"), each in the order of AllPermissions. The database
// is the source of truth; TestBuiltInRolesMatchTheDatabase (services/auth)
// checks the two agree.
var BuiltInRoles = []BuiltInRole{
	{ID: 1, Name: RoleAdmin, Global: true, Permissions: AllPermissions},
	{ID: 2, Name: RoleSupport, Global: true, Permissions: SortPermissions([]string{
		PermDashboardAccess, PermStatisticsAccess, PermGetTransactions, PermViewLogs, PermGetProviders,
		PermBalanceAccess, PermFilesAccess, PermViewFrauds, PermViewRecentActions, PermViewFees, PermJobsAccess,
	})},
	{ID: 3, Name: RoleMerchant, Permissions: merchantGrants},
	{ID: 4, Name: RoleMerchantAdmin, Permissions: SortPermissions(append(slices.Clone(merchantGrants),
		PermEditTransactions, PermViewLogs, PermEditCollab, PermCredentialsAccess, PermViewFrauds,
		PermCancelCallbacks, PermAllowIP, PermAddUsers, PermEditUser))},
	{ID: 5, Name: RoleMerchantFinanceManager, Permissions: []string{
		PermDashboardAccess, PermStatisticsAccess, PermGetTransactions, PermBalanceAccess, PermFilesAccess, PermViewFees,
	}},
	{ID: 6, Name: RoleMerchantSupport, Permissions: []string{PermGetTransactions, PermViewLogs, PermGetProviders}},
}

// BuiltInGlobal reports whether any of roles is an admin-wide built-in role.
// Tests and seeds use it to give a user of a built-in role its flag; the
// only access decision that reads a role's name is Claims.GlobalScope's
// reading of a token older than TokenVersionScope.
func BuiltInGlobal(roles []string) bool {
	return slices.ContainsFunc(BuiltInRoles, func(b BuiltInRole) bool { return b.Global && slices.Contains(roles, b.Name) })
}

// SortPermissions orders perms as AllPermissions does and drops duplicates
// and unknown names.
func SortPermissions(perms []string) []string {
	out := make([]string, 0, len(perms))
	for _, p := range AllPermissions {
		if slices.Contains(perms, p) {
			out = append(out, p)
		}
	}
	return out
}

// IsPermission reports whether name is one of the 30 permissions.
func IsPermission(name string) bool { return slices.Contains(AllPermissions, name) }

// Missing returns the permissions of want that have lacks, in the order of
// AllPermissions.
func Missing(have, want []string) []string {
	var out []string
	for _, p := range SortPermissions(want) {
		if !slices.Contains(have, p) {
			out = append(out, p)
		}
	}
	return out
}
