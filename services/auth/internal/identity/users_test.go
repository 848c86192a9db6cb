package identity

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/access"

	"github.com/paygate/paygate/services/internal/apperr"
)

func TestCheckPassword(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, username, password string
		ok                       bool
	}{
		{"strong", "alice", "Tangerine-Orbit-42", true},
		{"empty", "alice", "", false},
		{"too short", "alice", "Short-pass1", false},
		{"too long", "alice", strings.Repeat("ab", 65), false},
		{"the username", "alice.long.name", "ALICE.LONG.NAME", false},
		{"common", "alice", "Password12345", false},
		{"keyboard walk", "alice", "QWERTYUIOP123", false},
		{"repeated word", "alice", "monkeymonkey", false},
		{"iloveyou", "alice", "ILoveYou1234", false},
		{"spaces only", "alice", strings.Repeat(" ", 14), false},
		{"blanks only", "alice", " \t\u00a0\u3000 \t\u2003    \n  ", false},
		{"spaces inside", "alice", "Tangerine Orbit 42", true},
	} {
		err := CheckPassword("newPassword", tc.username, tc.password, DefaultPasswordMinLen)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
		if err != nil && (apperr.KindOf(err) != apperr.KindInvalid || !strings.HasPrefix(err.Error(), "newPassword ")) {
			t.Errorf("%s: %v is not a 400 naming newPassword", tc.name, err)
		}
	}
}

// The demo users' passwords, and the ones the end-to-end tests choose, pass.
func TestDemoPasswordsAreNotCommon(t *testing.T) {
	t.Parallel()
	for _, u := range DemoUsers {
		if err := CheckPassword("password", u.Username, u.Password, DefaultPasswordMinLen); err != nil {
			t.Errorf("demo user %s: %v", u.Username, err)
		}
	}
	if err := CheckPassword("password", "newcomer", "paygate-e2e-1764000000000", DefaultPasswordMinLen); err != nil {
		t.Errorf("end-to-end password: %v", err)
	}
	// Issue 27: at least 10,000 entries, each one a deployment's minimum
	// length could let through.
	if len(commonPasswords) < 10000 {
		t.Errorf("only %d common passwords", len(commonPasswords))
	}
	for p := range commonPasswords {
		if len(p) < MinPasswordLen || p != strings.ToLower(p) {
			t.Errorf("common password %q: shorter than the lowest minimum or not lowercase", p)
		}
	}
}

func TestCheckUsername(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"  alice  ":             "alice",
		"a.b_c-d@e":             "a.b_c-d@e",
		"ab":                    "",
		"a b c":                 "",
		"ålice":                 "",
		strings.Repeat("a", 64): strings.Repeat("a", 64),
		strings.Repeat("a", 65): "",
	} {
		got, err := CheckUsername(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("CheckUsername(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestCheckAllowedIP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in    AllowedIPInput
		field string // "" for valid
	}{
		{AllowedIPInput{"Office", "10.0.0.1", "10.0.0.9"}, ""},
		{AllowedIPInput{"Office", "10.0.0.1", "10.0.0.1"}, ""},
		{AllowedIPInput{"VPN", "2001:db8::1", "2001:db8::ff"}, ""},
		{AllowedIPInput{"Mapped", "::ffff:10.0.0.1", "10.0.0.2"}, ""},
		{AllowedIPInput{" ", "10.0.0.1", "10.0.0.9"}, "name"},
		{AllowedIPInput{strings.Repeat("n", 101), "10.0.0.1", "10.0.0.9"}, "name"},
		{AllowedIPInput{"Office", "10.0.0", "10.0.0.9"}, "fromIP"},
		{AllowedIPInput{"Office", "fe80::1%eth0", "fe80::2"}, "fromIP"},
		{AllowedIPInput{"Office", "10.0.0.1", ""}, "toIP"},
		{AllowedIPInput{"Office", "10.0.0.1", "2001:db8::1"}, "toIP"},
		{AllowedIPInput{"Office", "10.0.0.9", "10.0.0.1"}, "toIP"},
	} {
		_, _, _, err := CheckAllowedIP(tc.in)
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%v: %v", tc.in, err)
		case tc.field != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.field+" ")):
			t.Errorf("%v: %v, want a refusal naming %s", tc.in, err, tc.field)
		}
	}
}

func TestScopeContains(t *testing.T) {
	t.Parallel()
	// The scope reads the role's flag and permissions, never its name.
	user := func(id int64, global bool, perms []string, merchants ...int32) ManagedUser {
		return ManagedUser{ID: id, Roles: []string{"Some role"}, Global: global, Permissions: perms, MerchantIDs: merchants}
	}
	view := []string{access.PermGetTransactions}
	fees := []string{access.PermGetTransactions, access.PermEditFees}
	byMerchants := Scope{ByMerchants: true, MerchantIDs: []int32{1, 2}}
	bounded := Scope{ByMerchants: true, MerchantIDs: []int32{1, 2}, Within: view}
	for _, tc := range []struct {
		scope Scope
		user  ManagedUser
		want  bool
	}{
		{Scope{All: true}, user(1, true, access.AllPermissions), true},
		{byMerchants, user(2, false, view, 1), true},
		{byMerchants, user(3, false, view, 1, 2), true},
		{byMerchants, user(4, false, view, 1, 3), false},
		{byMerchants, user(5, false, view), false},
		{byMerchants, user(6, true, view, 1), false},
		{byMerchants, user(7, true, access.AllPermissions), false},
		{Scope{UserID: 8}, user(8, false, view, 9), true},
		{Scope{UserID: 8}, user(9, false, view, 1), false},
		{Scope{ByMerchants: true}, user(10, false, view, 1), false},
		// Nobody reaches a user who holds more than itself.
		{bounded, user(11, false, view, 1), true},
		{bounded, user(12, false, fees, 1), false},
		{Scope{All: true, Within: view}, user(13, true, fees), false},
		{Scope{All: true, Within: view}, user(14, true, nil), true},
		{Scope{All: true, Within: view, UserID: 15}, user(15, true, fees), true},
	} {
		if got := tc.scope.Contains(tc.user); got != tc.want {
			t.Errorf("%+v contains %+v = %v, want %v", tc.scope, tc.user, got, tc.want)
		}
	}
}

// TestGivableByPermissions: the roles an actor may give follow its flag and
// permissions; for the built-in roles that is all six for an Admin and the
// four merchant roles for a Merchant Admin.
func TestGivableByPermissions(t *testing.T) {
	t.Parallel()
	var all []Role
	for _, b := range access.BuiltInRoles {
		all = append(all, Role{ID: b.ID, Name: b.Name, BuiltIn: true, Global: b.Global, Permissions: b.Permissions})
	}
	all = append(all, Role{ID: 101, Name: "Fee desk", Permissions: []string{access.PermViewFees, access.PermEditFees}})
	givable := func(a Actor) []string {
		var out []string
		for _, r := range all {
			if a.MayGive(r) == nil {
				out = append(out, r.Name)
			}
		}
		return out
	}
	admin := Actor{User: User{Permissions: access.AllPermissions, Global: true}}
	madmin := Actor{User: User{Permissions: access.BuiltInRoles[3].Permissions, MerchantIDs: []int32{1}}}
	if got := givable(admin); len(got) != 7 {
		t.Errorf("an Admin gives %v, want all seven", got)
	}
	if got, want := givable(madmin), []string{access.RoleMerchant, access.RoleMerchantAdmin, access.RoleMerchantFinanceManager, access.RoleMerchantSupport}; !slices.Equal(got, want) {
		t.Errorf("a Merchant Admin gives %v, want %v", got, want)
	}
	err := madmin.MayGive(all[6])
	if apperr.KindOf(err) != apperr.KindForbidden || !strings.Contains(err.Error(), "Edit Fees") {
		t.Errorf("a Merchant Admin giving a role with Edit Fees: %v", err)
	}
}

func TestDiffFieldsKeepsChangesOnly(t *testing.T) {
	t.Parallel()
	before := userFields(ManagedUser{Username: "a", MerchantIDs: []int32{1}, RoleIDs: []int32{3}, Roles: []string{"Merchant"}})
	after := userFields(ManagedUser{Username: "a", MerchantIDs: []int32{1, 2}, RoleIDs: []int32{3}, Roles: []string{"Merchant"}, IsDisabled: true})
	b, a := diffFields(before, after)
	if fmt.Sprint(b) != "map[isDisabled:false merchantIds:[1]]" || fmt.Sprint(a) != "map[isDisabled:true merchantIds:[1 2]]" {
		t.Fatalf("diff %v → %v", b, a)
	}
	if b, a := diffFields(before, before); len(b)+len(a) != 0 {
		t.Fatalf("no change gave %v → %v", b, a)
	}
}
