package grpcapi_test

import (
	"maps"
	"slices"
	"testing"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

// TestRulesTreatCustomRolesAsBuiltIn: a custom role with a built-in role's
// flag and permissions gets exactly its access (docs/access.md).
func TestRulesTreatCustomRolesAsBuiltIn(t *testing.T) {
	t.Parallel()
	rules := maps.Clone(grpcapi.Rules)
	maps.Copy(rules, grpcapi.WebAuthnRules)
	authz.CheckCustomTwins(t, rules)
}

// TestRoleEditingIsForAdmins: of the built-in roles only Admin edits roles
// (access.ReqManageRoles); listing them stays with Add Users.
func TestRoleEditingIsForAdmins(t *testing.T) {
	t.Parallel()
	for _, m := range []string{authv1.RoleService_CreateRole_FullMethodName, authv1.RoleService_UpdateRole_FullMethodName,
		authv1.RoleService_DeleteRole_FullMethodName} {
		if got := authz.Admitted(grpcapi.Rules[m]); !slices.Equal(got, []string{access.RoleAdmin}) {
			t.Errorf("%s admits %v, want Admin only", m, got)
		}
	}
	if got := authz.Admitted(grpcapi.Rules[authv1.UserService_ListRoles_FullMethodName]); !slices.Equal(got, []string{access.RoleAdmin, access.RoleMerchantAdmin}) {
		t.Errorf("ListRoles admits %v, want Admin and Merchant Admin", got)
	}
}
