package identity

import (
	"testing"

	"github.com/paygate/paygate/services/internal/access"
)

// The sessions an actor lists and ends follow its permissions, never its
// role's name: Add Users or Edit User lists the sessions of its user scope,
// Edit User ends them, and everyone lists and ends its own.
func TestSessionScopesFollowPermissions(t *testing.T) {
	t.Parallel()
	own := ManagedUser{ID: 7, MerchantIDs: []int32{1}, Roles: []string{"Anything"}}
	colleague := ManagedUser{ID: 8, MerchantIDs: []int32{1}, Roles: []string{access.RoleMerchantAdmin}}
	stranger := ManagedUser{ID: 9, MerchantIDs: []int32{2}, Roles: []string{access.RoleMerchant}}
	for _, tc := range []struct {
		name                string
		roles, perms        []string
		listsColleague      bool
		endsColleague       bool
		listsOrEndsStranger bool
	}{
		{"merchant role, no user management", []string{access.RoleMerchant}, []string{access.PermGetTransactions}, false, false, false},
		{"merchant admin role, no user management", []string{access.RoleMerchantAdmin}, nil, false, false, false},
		{"add users only", []string{"Custom"}, []string{access.PermAddUsers}, true, false, false},
		{"edit user only", []string{"Custom"}, []string{access.PermEditUser}, true, true, false},
		{"both", []string{access.RoleMerchantAdmin}, []string{access.PermAddUsers, access.PermEditUser}, true, true, false},
	} {
		a := Actor{User: User{ID: own.ID, Roles: tc.roles, Permissions: tc.perms, MerchantIDs: []int32{1}}}
		list, end := a.SessionListScope(), a.SessionEndScope()
		if !list.Contains(own) || !end.Contains(own) {
			t.Errorf("%s: does not reach its own sessions", tc.name)
		}
		if got := list.Contains(colleague); got != tc.listsColleague {
			t.Errorf("%s: lists a colleague's sessions %v, want %v", tc.name, got, tc.listsColleague)
		}
		if got := end.Contains(colleague); got != tc.endsColleague {
			t.Errorf("%s: ends a colleague's sessions %v, want %v", tc.name, got, tc.endsColleague)
		}
		if list.Contains(stranger) || end.Contains(stranger) {
			t.Errorf("%s: reaches another merchant's user", tc.name)
		}
	}
	admin := Actor{User: User{ID: 1, Roles: []string{access.RoleAdmin}, Permissions: access.AllPermissions, Global: true}}
	if !admin.SessionListScope().Contains(stranger) || !admin.SessionEndScope().Contains(stranger) {
		t.Error("an Admin does not reach every session")
	}
}
