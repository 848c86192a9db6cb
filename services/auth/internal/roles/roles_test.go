package roles

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// fakeTx is a role store in memory: one transaction at a time, writes kept
// only when fn succeeds.
type fakeTx struct {
	roles     map[int32]identity.Role
	holders   map[int32][]Holder
	admins    []int64
	revoked   []int64
	published []proto.Message
}

func (f *fakeTx) LockUserAdministration(context.Context) error { return nil }
func (f *fakeTx) RoleForUpdate(_ context.Context, id int32) (identity.Role, error) {
	r, ok := f.roles[id]
	if !ok {
		return r, apperr.NotFound(identity.MsgRoleNotFound)
	}
	return r, nil
}
func (f *fakeTx) InsertRole(_ context.Context, r identity.Role, _ time.Time) (int32, error) {
	r.ID = int32(101 + len(f.roles))
	f.roles[r.ID] = r
	return r.ID, nil
}
func (f *fakeTx) UpdateRole(_ context.Context, r identity.Role, _ time.Time) error {
	f.roles[r.ID] = r
	return nil
}
func (f *fakeTx) DeleteRole(_ context.Context, id int32) error { delete(f.roles, id); return nil }
func (f *fakeTx) RoleHolders(_ context.Context, id int32) ([]Holder, error) {
	return f.holders[id], nil
}
func (f *fakeTx) EnabledFullAdmins(context.Context) ([]int64, error) { return f.admins, nil }
func (f *fakeTx) RevokeUserSessions(_ context.Context, userID int64, _ string, _ time.Time) ([]string, error) {
	f.revoked = append(f.revoked, userID)
	return []string{"s" + string(rune('0'+userID))}, nil
}
func (f *fakeTx) Publish(_ context.Context, ev proto.Message) error {
	f.published = append(f.published, ev)
	return nil
}

type fakeStore struct{ tx *fakeTx }

func (s fakeStore) Tx(ctx context.Context, fn func(Tx) error) error { return fn(s.tx) }

type fakeRevoker struct{ ids []string }

func (r *fakeRevoker) Revoke(_ context.Context, sid string, _ time.Duration) error {
	r.ids = append(r.ids, sid)
	return nil
}

var fullAdmin = identity.Actor{User: identity.User{ID: 1, Username: "admin", Permissions: access.AllPermissions, Global: true}}

// TestTheLastFullAdministratorStays: a role edit may not take the power of
// a full administrator from the only enabled ones.
func TestTheLastFullAdministratorStays(t *testing.T) {
	t.Parallel()
	full := identity.Role{ID: 101, Name: "Root", Global: true, Permissions: access.AllPermissions}
	for _, tc := range []struct {
		name   string
		admins []int64
		want   apperr.Kind
	}{
		{"the holders are the only full administrators", []int64{7, 8}, apperr.KindConflict},
		{"another user stays one", []int64{7, 8, 9}, ""},
	} {
		tx := &fakeTx{roles: map[int32]identity.Role{101: full}, holders: map[int32][]Holder{101: {{7, "a"}, {8, "b"}}}, admins: tc.admins}
		rev := &fakeRevoker{}
		svc := NewService(fakeStore{tx}, rev, time.Minute, slog.New(slog.NewTextHandler(io.Discard, nil)), nil)
		_, err := svc.Update(context.Background(), fullAdmin, 101, Input{Name: "Root", Permissions: access.AllPermissions[1:], Global: true})
		if apperr.KindOf(err) != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if tc.want == "" && (!slices.Equal(tx.revoked, []int64{7, 8}) || len(rev.ids) != 2) {
			t.Errorf("%s: a removal ended the sessions of %v (cache %v), want both holders'", tc.name, tx.revoked, rev.ids)
		}
		if tc.want != "" && len(rev.ids) != 0 {
			t.Errorf("%s: a refused change revoked %v", tc.name, rev.ids)
		}
	}
}

func TestDescribeHolders(t *testing.T) {
	t.Parallel()
	var many []Holder
	for i := range 12 {
		many = append(many, Holder{ID: int64(i), Username: "u" + string(rune('a'+i))})
	}
	for _, tc := range []struct {
		holders []Holder
		want    string
	}{
		{many[:1], "1 user (ua)"},
		{many[:3], "3 users (ua, ub, uc)"},
		{many, "12 users (ua, ub, uc, ud, ue, uf, ug, uh, ui, uj and 2 more)"},
	} {
		if got := describeHolders(tc.holders); got != tc.want {
			t.Errorf("describeHolders = %q, want %q", got, tc.want)
		}
	}
}

func TestCheckInput(t *testing.T) {
	t.Parallel()
	r, err := check(Input{Name: "  Fee desk  ", Permissions: []string{access.PermEditFees, access.PermViewFees, access.PermEditFees}})
	if err != nil || r.Name != "Fee desk" || !slices.Equal(r.Permissions, []string{access.PermViewFees, access.PermEditFees}) {
		t.Errorf("check = %+v, %v", r, err)
	}
	for _, in := range []Input{{Name: "x"}, {Name: strings.Repeat("x", 65)}, {Name: "tab\there"}, {Name: "Ok name", Permissions: []string{"Nope"}}} {
		if _, err := check(in); apperr.KindOf(err) != apperr.KindInvalid {
			t.Errorf("check(%+v) = %v, want invalid", in, err)
		}
	}
}
