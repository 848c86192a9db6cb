package access

import "testing"

// A token of the previous auth release (no ver 2, no globalScope) is read as
// its release meant it; a token of this release only by its flag.
func TestGlobalScopeOfOlderTokens(t *testing.T) {
	cases := []struct {
		name   string
		claims Claims
		want   bool
	}{
		{"old Admin token", Claims{Roles: []string{RoleAdmin}, Version: TokenVersionRefills}, true},
		{"old Support token without ver", Claims{Roles: []string{RoleSupport}}, true},
		{"old Merchant Admin token", Claims{Roles: []string{RoleMerchantAdmin}, Version: TokenVersionRefills}, false},
		{"new token, flag set", Claims{Roles: []string{"Auditors"}, Global: true, Version: TokenVersionScope}, true},
		{"new token named Admin without the flag", Claims{Roles: []string{RoleAdmin}, Version: TokenVersionScope}, false},
		{"new merchant-scoped custom role", Claims{Roles: []string{"Desk"}, Version: TokenVersionScope}, false},
	}
	for _, c := range cases {
		if got := c.claims.GlobalScope(); got != c.want {
			t.Errorf("%s: GlobalScope() = %v, want %v", c.name, got, c.want)
		}
	}
}
