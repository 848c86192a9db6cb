// Package roles is the auth service's role editor: custom roles made of any
// of the 30 permissions and the scope flag, created, renamed, edited and
// deleted by administrators (docs/access.md). The six built-in roles are
// read-only. Nobody grants a permission it does not hold. A change that
// removes access ends the sessions of the role's holders at once; one that
// adds access reaches them with their next token. Every change is audited
// through the outbox, like every user change.
//
// Listing roles and giving them to users is user administration (package
// identity: GivableRoles, AddUser, UpdateUser).
package roles

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Audit actions published as events.v1.UserAudited.
const (
	ActionCreated = "role.created"
	ActionUpdated = "role.updated"
	ActionDeleted = "role.deleted"
)

// Name bounds of a role.
const (
	NameMin = 2
	NameMax = 64
)

// maxNamedHolders is how many holders a refused deletion names.
const maxNamedHolders = 10

// Holder is a user holding a role.
type Holder struct {
	ID       int64
	Username string
}

// Store runs the writes of one change in a transaction.
type Store interface {
	// Tx runs fn in one database transaction, committed when fn returns nil.
	Tx(ctx context.Context, fn func(Tx) error) error
}

// Tx is what a role change reads and writes inside Store.Tx.
type Tx interface {
	// LockUserAdministration serializes role and user changes for the rest
	// of the transaction (the last full administrator).
	LockUserAdministration(ctx context.Context) error
	// RoleForUpdate returns and locks a role. Returns a not-found error
	// when there is none.
	RoleForUpdate(ctx context.Context, id int32) (identity.Role, error)
	// InsertRole stores a custom role and its permissions and returns its
	// id. Returns a conflict error when the name is taken (ignoring case).
	InsertRole(ctx context.Context, r identity.Role, at time.Time) (int32, error)
	// UpdateRole replaces a role's name, flag and permissions. Returns a
	// conflict error when the name is taken (ignoring case).
	UpdateRole(ctx context.Context, r identity.Role, at time.Time) error
	// DeleteRole removes a role no user holds.
	DeleteRole(ctx context.Context, id int32) error
	// RoleHolders lists the users holding a role, by username.
	RoleHolders(ctx context.Context, id int32) ([]Holder, error)
	// EnabledFullAdmins lists the ids of the enabled full administrators
	// (identity.FullAdmin), in id order.
	EnabledFullAdmins(ctx context.Context) ([]int64, error)
	// RevokeUserSessions revokes every live session of a user and returns
	// the ids it revoked.
	RevokeUserSessions(ctx context.Context, userID int64, reason string, at time.Time) ([]string, error)
	// Publish queues an event to leave with this transaction (outbox).
	Publish(ctx context.Context, event proto.Message) error
}

// Revoker puts sessions on the revocation list every service checks.
type Revoker interface {
	// Revoke marks a session revoked for ttl (the access-token lifetime).
	Revoke(ctx context.Context, sessionID string, ttl time.Duration) error
}

// Service creates, edits and deletes roles.
type Service struct {
	store     Store
	revoker   Revoker
	accessTTL time.Duration
	log       *slog.Logger
	now       func() time.Time
}

// NewService returns a Service. accessTTL is the access-token lifetime (how
// long a revocation must last); now may be nil for time.Now.
func NewService(store Store, revoker Revoker, accessTTL time.Duration, log *slog.Logger, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, revoker: revoker, accessTTL: accessTTL, log: log, now: now}
}

// Input is a role's name, permissions and scope flag, as a caller gives
// them.
type Input struct {
	Name        string
	Permissions []string
	Global      bool
}

// CheckName trims a role name and checks it: 2 to 64 characters, no control
// characters.
//
// Errors: Invalid, naming name.
func CheckName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", apperr.Invalid("name is required.")
	}
	if n := utf8.RuneCountInString(name); n < NameMin || n > NameMax {
		return "", apperr.Invalid("name must be %d to %d characters long.", NameMin, NameMax)
	}
	if strings.ContainsFunc(name, unicode.IsControl) {
		return "", apperr.Invalid("name must not hold control characters (tabs, line breaks).")
	}
	return name, nil
}

// CheckPermissions checks that every name is one of the 30 permissions and
// returns them in the order of access.AllPermissions, once each.
//
// Errors: Invalid, naming permissions.
func CheckPermissions(perms []string) ([]string, error) {
	for _, p := range perms {
		if !access.IsPermission(p) {
			return nil, apperr.Invalid("permissions holds %q, which is not a permission.", p)
		}
	}
	return access.SortPermissions(perms), nil
}

// check validates in into the role it describes.
func check(in Input) (identity.Role, error) {
	name, err := CheckName(in.Name)
	if err != nil {
		return identity.Role{}, err
	}
	perms, err := CheckPermissions(in.Permissions)
	if err != nil {
		return identity.Role{}, err
	}
	return identity.Role{Name: name, Permissions: perms, Global: in.Global}, nil
}

// mayDefine refuses a role the actor may not define or manage: one holding
// a permission the actor lacks, or an admin-wide one for a merchant-scoped
// actor.
func mayDefine(a identity.Actor, r identity.Role) error {
	if missing := access.Missing(a.Permissions, r.Permissions); len(missing) > 0 {
		return apperr.Forbidden("You may not grant permissions you do not hold: %s.", strings.Join(missing, ", "))
	}
	if r.Global && !a.Global {
		return apperr.Forbidden("Only a user who sees every merchant may make a role that does.")
	}
	return nil
}

// msgBuiltIn refuses a change of a built-in role.
func msgBuiltIn(name string) error {
	return apperr.Forbidden("The role %s is built in and cannot be changed.", name)
}

// Create makes a custom role.
//
// Errors: Invalid (a field), Forbidden (a permission or the flag the actor
// may not grant), Conflict (name taken).
func (s *Service) Create(ctx context.Context, a identity.Actor, in Input) (identity.Role, error) {
	role, err := check(in)
	if err != nil {
		return identity.Role{}, err
	}
	if err := mayDefine(a, role); err != nil {
		return identity.Role{}, err
	}
	now := s.now()
	err = s.store.Tx(ctx, func(tx Tx) error {
		id, err := tx.InsertRole(ctx, role, now)
		if err != nil {
			return nameConflict(err, role.Name)
		}
		role.ID = id
		return tx.Publish(ctx, audit(a, ActionCreated, role.ID, role.Name, nil, fields(role), now))
	})
	if err != nil {
		return identity.Role{}, err
	}
	s.log.InfoContext(ctx, "role created", "role_id", role.ID, "by", a.ID)
	return role, nil
}

// Update replaces a custom role's name, permissions and flag. Removing a
// permission, or the merchant-wide scope, ends every session of the role's
// holders at once; an addition reaches them with their next token.
//
// Errors: Invalid (a field), NotFound (no such role), Forbidden (a built-in
// role, or a permission or the flag the actor may not grant, before or
// after), Conflict (name taken, the last full administrator).
func (s *Service) Update(ctx context.Context, a identity.Actor, id int32, in Input) (identity.Role, error) {
	next, err := check(in)
	if err != nil {
		return identity.Role{}, err
	}
	now := s.now()
	var ended []string
	err = s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.LockUserAdministration(ctx); err != nil {
			return err
		}
		cur, err := tx.RoleForUpdate(ctx, id)
		if err != nil {
			return err
		}
		if cur.BuiltIn {
			return msgBuiltIn(cur.Name)
		}
		if err := mayDefine(a, cur); err != nil {
			return err
		}
		if err := mayDefine(a, next); err != nil {
			return err
		}
		next.ID = cur.ID
		before, after := diff(fields(cur), fields(next))
		if len(after) == 0 {
			next = cur
			return nil
		}
		if err := tx.UpdateRole(ctx, next, now); err != nil {
			return nameConflict(err, next.Name)
		}
		holders, err := tx.RoleHolders(ctx, cur.ID)
		if err != nil {
			return err
		}
		if identity.FullAdmin(cur.Global, cur.Permissions) && !identity.FullAdmin(next.Global, next.Permissions) {
			if err := keepsAFullAdmin(ctx, tx, holders); err != nil {
				return err
			}
		}
		if len(access.Missing(next.Permissions, cur.Permissions)) > 0 || cur.Global && !next.Global {
			for _, h := range holders {
				ids, err := endSessions(ctx, tx, h.ID, now)
				if err != nil {
					return err
				}
				ended = append(ended, ids...)
			}
		}
		return tx.Publish(ctx, audit(a, ActionUpdated, cur.ID, cur.Name, before, after, now))
	})
	if err != nil {
		return identity.Role{}, err
	}
	s.revokeInCache(ctx, ended)
	s.log.InfoContext(ctx, "role updated", "role_id", id, "by", a.ID, "sessions_ended", len(ended))
	return next, nil
}

// Delete removes a custom role that no user holds.
//
// Errors: NotFound (no such role), Forbidden (a built-in role, or one
// holding a permission the actor lacks), Conflict (users hold it; they are
// named).
func (s *Service) Delete(ctx context.Context, a identity.Actor, id int32) error {
	now := s.now()
	err := s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.LockUserAdministration(ctx); err != nil {
			return err
		}
		cur, err := tx.RoleForUpdate(ctx, id)
		if err != nil {
			return err
		}
		if cur.BuiltIn {
			return msgBuiltIn(cur.Name)
		}
		if err := mayDefine(a, cur); err != nil {
			return err
		}
		holders, err := tx.RoleHolders(ctx, cur.ID)
		if err != nil {
			return err
		}
		if len(holders) > 0 {
			return apperr.Conflict("The role %s is held by %s: give them another role first.", cur.Name, describeHolders(holders))
		}
		if err := tx.DeleteRole(ctx, cur.ID); err != nil {
			return err
		}
		return tx.Publish(ctx, audit(a, ActionDeleted, cur.ID, cur.Name, fields(cur), nil, now))
	})
	if err != nil {
		return err
	}
	s.log.InfoContext(ctx, "role deleted", "role_id", id, "by", a.ID)
	return nil
}

// describeHolders names the holders of a role: "1 user (alice)", "3 users
// (alice, bob, carol)", at most maxNamedHolders names then "and N more".
func describeHolders(holders []Holder) string {
	names := make([]string, 0, min(len(holders), maxNamedHolders))
	for _, h := range holders[:min(len(holders), maxNamedHolders)] {
		names = append(names, h.Username)
	}
	list := strings.Join(names, ", ")
	if more := len(holders) - len(names); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	if len(holders) == 1 {
		return "1 user (" + list + ")"
	}
	return fmt.Sprintf("%d users (%s)", len(holders), list)
}

// keepsAFullAdmin refuses a change that takes the power of a full
// administrator from every holder of a role when no other enabled user has
// it.
func keepsAFullAdmin(ctx context.Context, tx Tx, holders []Holder) error {
	admins, err := tx.EnabledFullAdmins(ctx)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(admins, func(id int64) bool {
		return !slices.ContainsFunc(holders, func(h Holder) bool { return h.ID == id })
	}) {
		return nil
	}
	return apperr.Conflict("This change would leave no enabled full administrator (every permission, every merchant): give another user such a role first.")
}

// endSessions revokes every live session of a user who lost access, and
// announces each.
func endSessions(ctx context.Context, tx Tx, userID int64, now time.Time) ([]string, error) {
	ids, err := tx.RevokeUserSessions(ctx, userID, identity.ReasonRoleChanged, now)
	if err != nil {
		return nil, err
	}
	for _, sid := range ids {
		if err := tx.Publish(ctx, &eventsv1.SessionRevoked{
			SessionId: sid, UserId: userID,
			Reason:    eventsv1.SessionRevokedReason_SESSION_REVOKED_REASON_TERMINATED,
			RevokedAt: timestamppb.New(now),
		}); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// revokeInCache puts sessions on the revocation list every service checks;
// a failure is logged (the periodic refill repairs it from Postgres).
func (s *Service) revokeInCache(ctx context.Context, sessionIDs []string) {
	for _, sid := range sessionIDs {
		if err := s.revoker.Revoke(ctx, sid, s.accessTTL); err != nil {
			s.log.ErrorContext(ctx, "revoke session in cache", "session_id", sid, "err", err)
		}
	}
}

// nameConflict words a name conflict; other errors pass.
func nameConflict(err error, name string) error {
	if apperr.KindOf(err) == apperr.KindConflict {
		return apperr.Conflict("A role named %s already exists.", name)
	}
	return err
}

// fields are the audited fields of a role, by their JSON names.
func fields(r identity.Role) map[string]any {
	return map[string]any{
		"name":        r.Name,
		"permissions": identity.StringList(r.Permissions),
		"globalScope": r.Global,
	}
}

// diff keeps the fields whose values differ; the permissions are kept whole
// (the old and the new set).
func diff(before, after map[string]any) (map[string]any, map[string]any) {
	b, a := map[string]any{}, map[string]any{}
	for k, v := range after {
		if !reflect.DeepEqual(before[k], v) {
			a[k], b[k] = v, before[k]
		}
	}
	return b, a
}

// audit builds the UserAudited event of a role change: actor a did action
// to role id (named name before the change).
func audit(a identity.Actor, action string, id int32, name string, before, after map[string]any, at time.Time) *eventsv1.UserAudited {
	ev := &eventsv1.UserAudited{
		Id: uuid.NewString(), Action: action,
		ActorUserId: a.ID, ActorUsername: a.Username, ActorIp: a.IP,
		TargetRoleId: id, TargetRoleName: name,
		At: timestamppb.New(at),
	}
	// The values are strings, booleans and lists of strings: NewStruct
	// cannot fail on them.
	if len(before) > 0 {
		ev.Before, _ = structpb.NewStruct(before)
	}
	if len(after) > 0 {
		ev.After, _ = structpb.NewStruct(after)
	}
	return ev
}
