package access_test

import (
	"slices"
	"testing"

	"github.com/paygate/paygate/services/internal/access"
)

// meeting lists the built-in roles that meet r, in BuiltInRoles order.
func meeting(r access.Requirement) []string {
	var out []string
	for _, b := range access.BuiltInRoles {
		if r.Holds(b.Global, b.Permissions) {
			out = append(out, b.Name)
		}
	}
	return out
}

// TestRequirementsRestateTheSpecsRoles pins each requirement to the built-in
// roles the spec's rule names (docs/access.md "Requirements").
func TestRequirementsRestateTheSpecsRoles(t *testing.T) {
	t.Parallel()
	const (
		admin = access.RoleAdmin
		mer   = access.RoleMerchant
		ma    = access.RoleMerchantAdmin
		mfm   = access.RoleMerchantFinanceManager
		ms    = access.RoleMerchantSupport
	)
	want := map[string][]string{
		"allMerchants":           {admin},
		"addCollabs":             {admin, mer, ma},
		"callbacksAndValidation": {admin, ma},
		"createTransaction":      {admin},
		"platformSettings":       {admin},
		"changeJobs":             {admin},
		"balances":               {admin, mer, ma, mfm},
		"globalFees":             {admin},
		"adminOrMerchant":        {admin, mer, ma, mfm, ms},
		"manageRoles":            {admin},
		"securityPolicy":         {admin},
	}
	if len(want) != len(access.Requirements) {
		t.Fatalf("%d requirements, the test pins %d", len(access.Requirements), len(want))
	}
	for _, r := range access.Requirements {
		if got := meeting(r); !slices.Equal(got, want[r.Name]) {
			t.Errorf("%s is met by %v, want %v", r.Name, got, want[r.Name])
		}
	}
}

// TestCustomRoleMatchesBuiltIn: a custom role with a built-in role's flag
// and permissions meets exactly the requirements the built-in role meets,
// and one holding more meets at least those (the name plays no part).
func TestCustomRoleMatchesBuiltIn(t *testing.T) {
	t.Parallel()
	for _, b := range access.BuiltInRoles {
		builtIn := &access.Claims{Roles: []string{b.Name}, Permissions: b.Permissions, Global: b.Global}
		twin := &access.Claims{Roles: []string{"Twin of " + b.Name}, Permissions: slices.Clone(b.Permissions), Global: b.Global}
		more := &access.Claims{Roles: []string{"More than " + b.Name}, Permissions: access.AllPermissions, Global: b.Global}
		for _, r := range access.Requirements {
			if r.MetBy(twin) != r.MetBy(builtIn) {
				t.Errorf("%s: %s meets it %v, its twin %v", r.Name, b.Name, r.MetBy(builtIn), r.MetBy(twin))
			}
			if r.MetBy(builtIn) && !r.MetBy(more) {
				t.Errorf("%s: a role holding more than %s does not meet it", r.Name, b.Name)
			}
		}
	}
}

func TestRequirementLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		r      access.Requirement
		global bool
		perms  []string
		want   bool
	}{
		{"global line, merchant caller", access.ReqPlatformSettings, false, []string{access.PermSettingsAccess}, false},
		{"global line, global caller", access.ReqPlatformSettings, true, []string{access.PermSettingsAccess}, true},
		{"every permission of the line", access.ReqChangeJobs, true, []string{access.PermJobsAccess}, false},
		{"merchant line, global caller", access.ReqBalances, true, []string{access.PermBalanceAccess}, false},
		{"merchant line, merchant caller", access.ReqBalances, false, []string{access.PermBalanceAccess}, true},
		{"second line", access.ReqBalances, true, []string{access.PermBalanceAccess, access.PermCredentialsAccess}, true},
		{"a line without permissions", access.ReqAdminOrMerchant, false, nil, true},
		{"no requirement is met by nobody", access.Requirement{}, true, access.AllPermissions, false},
	}
	for _, tt := range tests {
		if got := tt.r.Holds(tt.global, tt.perms); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if (access.ReqBalances).MetBy(nil) {
		t.Error("nil claims meet a requirement")
	}
}

func TestMissing(t *testing.T) {
	t.Parallel()
	got := access.Missing([]string{access.PermEditFees}, []string{access.PermEditUser, access.PermEditFees, access.PermDashboardAccess, access.PermEditUser})
	if want := []string{access.PermDashboardAccess, access.PermEditUser}; !slices.Equal(got, want) {
		t.Errorf("Missing = %v, want %v", got, want)
	}
}
