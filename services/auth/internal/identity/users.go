package identity

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Role is a role a user may hold: a built-in one (read-only) or a custom one
// (package roles). Access is decided by its permissions and scope flag,
// never by its name or id (docs/access.md).
type Role struct {
	ID      int32
	Name    string
	BuiltIn bool
	// Global is the scope flag: holders see every merchant.
	Global bool
	// Permissions, in the order of access.AllPermissions.
	Permissions []string
	// UserCount is how many users of the asking actor's scope hold the
	// role (GivableRoles only).
	UserCount int64
}

// FullAdmin reports whether a holder of the scope flag global and of perms
// is a full administrator: every merchant, every permission. There is
// always at least one enabled (docs/access.md).
func FullAdmin(global bool, perms []string) bool {
	return global && len(access.Missing(perms, access.AllPermissions)) == 0
}

// ManagedUser is a user as user administration sees it.
type ManagedUser struct {
	ID                  int64
	Username            string
	MerchantIDs         []int32
	RoleIDs             []int32
	Roles               []string
	IsIPRestricted      bool
	IsDisabled          bool
	IsTemporaryPassword bool
	// HasPasskey is true when the user registered a passkey.
	HasPasskey bool
	// Global is its role's scope flag; Permissions its role's permissions.
	Global      bool
	Permissions []string
	// HasSecondFactor is true when the user enrolled a second factor.
	HasSecondFactor bool
}

// Scope says which users (and so which sessions) a caller reaches.
type Scope struct {
	// All admits every user (an admin-wide caller).
	All bool
	// ByMerchants admits the users whose merchants are a non-empty subset of
	// MerchantIDs and whose role is merchant-scoped.
	ByMerchants bool
	MerchantIDs []int32
	// Within, when not nil, narrows All and ByMerchants to the users whose
	// permissions are all in it: nobody manages a user who holds more than
	// itself. nil when the caller holds every permission.
	Within []string
	// UserID admits this user too (0: nobody).
	UserID int64
}

// Contains reports whether u is within the scope.
func (sc Scope) Contains(u ManagedUser) bool {
	if sc.UserID != 0 && u.ID == sc.UserID {
		return true
	}
	if sc.Within != nil && len(access.Missing(sc.Within, u.Permissions)) > 0 {
		return false
	}
	if sc.All {
		return true
	}
	if !sc.ByMerchants || len(u.MerchantIDs) == 0 || u.Global {
		return false
	}
	for _, m := range u.MerchantIDs {
		if !slices.Contains(sc.MerchantIDs, m) {
			return false
		}
	}
	return true
}

// UserQuery selects a page of users.
type UserQuery struct {
	Scope Scope
	// Search keeps the users whose username contains it, ignoring case.
	Search string
	// MerchantID keeps the users of that merchant (0: all).
	MerchantID int32
	// RoleID keeps the users holding that role (0: all).
	RoleID int32
	Offset int
	Limit  int
}

// UserPage is one page of users and how many match in all.
type UserPage struct {
	Users []ManagedUser
	Total int64
}

// ActiveSession is a live session with its user's name.
type ActiveSession struct {
	Session
	Username string
}

// SessionQuery selects a page of live sessions (not revoked, refresh not
// expired at Now), newest first.
type SessionQuery struct {
	Scope Scope
	// Search keeps the sessions whose username, address or user agent
	// contains it, ignoring case.
	Search string
	// MerchantID keeps the sessions of users of that merchant (0: all).
	MerchantID int32
	// OnlyID keeps only the session of this id ("": no such filter).
	OnlyID string
	// ExceptID leaves out the session of this id ("": none).
	ExceptID string
	Now      time.Time
	Offset   int
	Limit    int
}

// SessionPage is one page of sessions and how many match in all.
type SessionPage struct {
	Sessions []ActiveSession
	Total    int64
}

// AllowedIP is one stored address range of a user.
type AllowedIP struct {
	ID     int64
	UserID int64
	Name   string
	From   netip.Addr
	To     netip.Addr
}

// AdminStore is the reading side of user administration.
type AdminStore interface {
	// Roles lists every role in id order, with its permissions (UserCount
	// left 0).
	Roles(ctx context.Context) ([]Role, error)
	// CountRoleHolders counts, by role id, the users of sc holding each
	// role.
	CountRoleHolders(ctx context.Context, sc Scope) (map[int32]int64, error)
	// ManagedUserByID returns a user. Returns a not-found error when there
	// is none.
	ManagedUserByID(ctx context.Context, id int64) (ManagedUser, error)
	// ListUsers returns a page of users, ordered by id, and the total.
	ListUsers(ctx context.Context, q UserQuery) (UserPage, error)
	// ListSessions returns a page of live sessions, newest first, and the
	// total.
	ListSessions(ctx context.Context, q SessionQuery) (SessionPage, error)
	// AllowedIPs lists a user's ranges, oldest firs.store.
	AllowedIPs(ctx context.Context, userID int64) ([]AllowedIP, error)
}

// AdminTx is the writing side of user administration, inside Store.Tx.
type AdminTx interface {
	// LockUserAdministration serializes the changes to users' roles and
	// states for the rest of the transaction (the last-Admin rule).
	LockUserAdministration(ctx context.Context) error
	// ManagedUser returns a user without locking it, on the transaction's
	// own connection. Returns a not-found error when there is none.
	ManagedUser(ctx context.Context, id int64) (ManagedUser, error)
	// ManagedUserForUpdate returns and locks a user. Returns a not-found
	// error when there is none.
	ManagedUserForUpdate(ctx context.Context, id int64) (ManagedUser, error)
	// InsertUser creates u (its roles by RoleIDs, its merchants) and returns
	// its id. Returns a conflict error when the username is taken.
	InsertUser(ctx context.Context, u ManagedUser, passwordHash string, at time.Time) (int64, error)
	// UpdateUser stores u's username, flags, roles and merchants. Returns a
	// conflict error when the username is taken.
	UpdateUser(ctx context.Context, u ManagedUser, at time.Time) error
	// EnabledFullAdmins lists the ids of the enabled full administrators
	// (FullAdmin), in id order.
	EnabledFullAdmins(ctx context.Context) ([]int64, error)
	// RevokeUserSessions revokes every live session of a user and returns
	// the ids it revoked.
	RevokeUserSessions(ctx context.Context, userID int64, reason string, at time.Time) ([]string, error)
	// AllowedIPForUpdate returns and locks a range. Returns a not-found
	// error when there is none.
	AllowedIPForUpdate(ctx context.Context, id int64) (AllowedIP, error)
	// InsertAllowedIP stores a range and returns its id.
	InsertAllowedIP(ctx context.Context, ip AllowedIP, at time.Time) (int64, error)
	// UpdateAllowedIP replaces a range's name and addresses.
	UpdateAllowedIP(ctx context.Context, ip AllowedIP) error
	// DeleteAllowedIP removes a range.
	DeleteAllowedIP(ctx context.Context, id int64) error
}

// Revocation reasons of user administration.
const (
	ReasonPasswordReset = "password_reset"
	ReasonDisabled      = "user_disabled"
	ReasonIPRestricted  = "ip_restricted"
	ReasonTerminated    = "terminated"
)

// Messages of user administration.
const (
	MsgUserNotFound     = "User not found."
	MsgRoleNotFound     = "Role not found."
	MsgMerchantNotFound = "Merchant not found."
	MsgNothingToUpdate  = "Nothing to update."
)

// Actor is the signed-in caller of an administration call, as stored now.
type Actor struct {
	User
	SessionID string
	IP        string
}

// UserScope is the users the actor sees and manages: every user for an
// admin-wide actor, otherwise the merchant-scoped users of its own
// merchants; either way only users whose permissions the actor holds every
// one of (decided by scope flag and permissions, never by a role's name).
func (a Actor) UserScope() Scope {
	sc := Scope{All: true}
	if !a.Global {
		sc = Scope{ByMerchants: true, MerchantIDs: a.MerchantIDs}
	}
	if len(access.Missing(a.Permissions, access.AllPermissions)) > 0 {
		sc.Within = append([]string{}, a.Permissions...)
	}
	return sc
}

// HasPermission reports whether the actor, as stored now, holds any of perms.
func (a Actor) HasPermission(perms ...string) bool {
	return slices.ContainsFunc(perms, func(p string) bool { return slices.Contains(a.Permissions, p) })
}

// SessionListScope is the sessions the actor lists: with a user-management
// permission (Add Users or Edit User), those of the users of its user scope
// and its own; without one, only its own. Decided by permission, never by
// a role's name (a plain Merchant sees only its own sessions).
func (a Actor) SessionListScope() Scope {
	return a.sessionScope(access.PermAddUsers, access.PermEditUser)
}

// SessionEndScope is the sessions the actor ends: with Edit User, those of
// the users of its user scope and its own; without it, only its own.
func (a Actor) SessionEndScope() Scope { return a.sessionScope(access.PermEditUser) }

func (a Actor) sessionScope(perms ...string) Scope {
	if !a.HasPermission(perms...) {
		return Scope{UserID: a.ID}
	}
	sc := a.UserScope()
	sc.UserID = a.ID
	return sc
}

// checkMerchantFilter refuses a merchant filter outside the actor's
// merchants (an admin-wide actor may filter by any).
func (a Actor) checkMerchantFilter(id int32) error {
	if id != 0 && !a.Global && !slices.Contains(a.MerchantIDs, id) {
		return apperr.NotFound(MsgMerchantNotFound)
	}
	return nil
}

// Actor returns the caller of claims as stored now, calling from ip.
//
// Errors: Unauthenticated (session ended or user gone).
func (s *Service) Actor(ctx context.Context, c *access.Claims, ip string) (Actor, error) {
	u, err := s.CurrentUser(ctx, c)
	if err != nil {
		return Actor{}, err
	}
	return Actor{User: u, SessionID: c.SessionID, IP: ip}, nil
}

// MayGive refuses a role the actor may not give: one holding a permission
// the actor lacks, or an admin-wide one given by a merchant-scoped actor.
// For the built-in roles that leaves everything to an Admin and the four
// merchant roles to a Merchant Admin.
//
// Errors: Forbidden, naming the role and why.
func (a Actor) MayGive(r Role) error {
	if missing := access.Missing(a.Permissions, r.Permissions); len(missing) > 0 {
		return apperr.Forbidden("You may not give the role %s: it holds permissions you do not have (%s).", r.Name, strings.Join(missing, ", "))
	}
	if r.Global && !a.Global {
		return apperr.Forbidden("You may not give the role %s: it sees every merchant, and you see only your own.", r.Name)
	}
	return nil
}

// GivableRoles lists the roles the actor may give (Actor.MayGive), built-in
// and custom, in id order, each with how many users of the actor's scope
// hold it.
func (s *Service) GivableRoles(ctx context.Context, a Actor) ([]Role, error) {
	all, err := s.store.Roles(ctx)
	if err != nil {
		return nil, err
	}
	counts, err := s.store.CountRoleHolders(ctx, a.UserScope())
	if err != nil {
		return nil, err
	}
	givable := slices.DeleteFunc(all, func(r Role) bool { return a.MayGive(r) != nil })
	for i := range givable {
		givable[i].UserCount = counts[givable[i].ID]
	}
	return givable, nil
}

// Page bounds of the list calls.
const (
	DefaultTake = 100
	MaxTake     = 500
)

// PageBounds checks a page number (from 1, 0 for 1) and a page size (1 to
// MaxTake, 0 for DefaultTake) and returns the page, size and offset.
//
// Errors: Invalid, naming page or take.
func PageBounds(page, take int32) (int32, int32, int, error) {
	if page == 0 {
		page = 1
	}
	if take == 0 {
		take = DefaultTake
	}
	if page < 1 {
		return 0, 0, 0, apperr.Invalid("page must be 1 or more.")
	}
	if take < 1 || take > MaxTake {
		return 0, 0, 0, apperr.Invalid("take must be between 1 and %d.", MaxTake)
	}
	return page, take, int(page-1) * int(take), nil
}

// ListUsers returns a page of the users in the actor's scope, of merchant
// merchantID and holding role roleID when those are not 0.
//
// Errors: Invalid (paging, roleId negative), NotFound (merchant filter
// outside the actor's merchants).
func (s *Service) ListUsers(ctx context.Context, a Actor, search string, merchantID, roleID int32, offset, limit int) (UserPage, error) {
	if err := a.checkMerchantFilter(merchantID); err != nil {
		return UserPage{}, err
	}
	if roleID < 0 {
		return UserPage{}, apperr.Invalid("roleId must not be negative.")
	}
	return s.store.ListUsers(ctx, UserQuery{Scope: a.UserScope(), Search: strings.TrimSpace(search), MerchantID: merchantID,
		RoleID: roleID, Offset: offset, Limit: limit})
}

// usernameMin and usernameMax bound a username's length.
const (
	usernameMin = 3
	usernameMax = 64
)

// CheckUsername trims a username and checks it: 3 to 64 letters, digits and
// . _ - @.
//
// Errors: Invalid, naming username.
func CheckUsername(username string) (string, error) {
	username = strings.TrimSpace(username)
	if username == "" {
		return "", apperr.Invalid("username is required.")
	}
	ok := len(username) >= usernameMin && len(username) <= usernameMax
	for _, r := range username {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@", r)) {
			ok = false
		}
	}
	if !ok {
		return "", apperr.Invalid("username must be %d to %d characters long, of letters, digits and . _ - @ only.", usernameMin, usernameMax)
	}
	return username, nil
}

// NewUserInput is what AddUser needs.
type NewUserInput struct {
	Username       string
	Password       string
	RoleID         int32
	MerchantIDs    []int32
	IsIPRestricted bool
	// Temporary makes the password one the user must replace at the next
	// sign-in.
	Temporary bool
}

// checkRoleAndMerchants checks that the actor may give role roleID (named
// by field; Actor.MayGive) and merchants, and that a merchant-scoped role
// comes with at least one merchant. It returns the role.
func (s *Service) checkRoleAndMerchants(ctx context.Context, a Actor, roleField string, roleID int32, merchants []int32) (Role, error) {
	all, err := s.store.Roles(ctx)
	if err != nil {
		return Role{}, err
	}
	i := slices.IndexFunc(all, func(r Role) bool { return r.ID == roleID })
	if i < 0 {
		return Role{}, apperr.Invalid("%s is not a known role.", roleField)
	}
	role := all[i]
	if err := a.MayGive(role); err != nil {
		return Role{}, err
	}
	for _, m := range merchants {
		if m <= 0 {
			return Role{}, apperr.Invalid("merchantIds must hold merchant ids (positive numbers).")
		}
		if !a.Global && !slices.Contains(a.MerchantIDs, m) {
			return Role{}, apperr.Forbidden("You may give only your own merchants; merchant %d is not one of them.", m)
		}
	}
	if !role.Global && len(merchants) == 0 {
		return Role{}, apperr.Invalid("merchantIds must hold at least one merchant for the role %s.", role.Name)
	}
	return role, nil
}

// withRole gives u the role r: its id, name, scope flag and permissions.
func withRole(u ManagedUser, r Role) ManagedUser {
	u.RoleIDs, u.Roles, u.Global, u.Permissions = []int32{r.ID}, []string{r.Name}, r.Global, slices.Clone(r.Permissions)
	return u
}

// normalizeMerchants sorts merchant ids and drops duplicates.
func normalizeMerchants(ids []int32) []int32 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// AddUser creates a user with one role and its merchants.
//
// Errors: Invalid (a field), Forbidden (a role or merchant the actor may not
// give), Conflict (username taken).
func (s *Service) AddUser(ctx context.Context, a Actor, in NewUserInput) (ManagedUser, error) {
	username, err := CheckUsername(in.Username)
	if err != nil {
		return ManagedUser{}, err
	}
	merchants := normalizeMerchants(in.MerchantIDs)
	role, err := s.checkRoleAndMerchants(ctx, a, "roleId", in.RoleID, merchants)
	if err != nil {
		return ManagedUser{}, err
	}
	if err := s.checkPassword("password", username, in.Password); err != nil {
		return ManagedUser{}, err
	}
	hash, err := HashPassword(in.Password, s.cfg.Argon2)
	if err != nil {
		return ManagedUser{}, err
	}
	now := s.now()
	u := withRole(ManagedUser{
		Username: username, MerchantIDs: merchants, IsIPRestricted: in.IsIPRestricted, IsTemporaryPassword: in.Temporary,
	}, role)
	var created ManagedUser
	err = s.store.Tx(ctx, func(tx Tx) error {
		id, err := tx.InsertUser(ctx, u, hash, now)
		if apperr.KindOf(err) == apperr.KindConflict {
			return apperr.Conflict("A user named %s already exists.", username)
		}
		if err != nil {
			return err
		}
		if created, err = tx.ManagedUserForUpdate(ctx, id); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, "user.created", created.ID, created.Username, nil, userFields(created), now)
	})
	if err != nil {
		return ManagedUser{}, err
	}
	s.log.InfoContext(ctx, "user created", "user_id", created.ID, "by", a.ID)
	return created, nil
}

// UserChanges are the fields UpdateUser changes; nil and empty ones stay.
type UserChanges struct {
	UserID      int64
	Username    *string
	MerchantIDs []int32
	RoleIDs     []int32
	IPRestrict  *bool
	Disable     *bool
}

// UpdateUser changes a user in the actor's scope. Disabling it,
// restricting it to its allowed IPs, or narrowing its access (a role
// lacking a permission of the old one or its merchant-wide scope, or fewer
// merchants) ends its sessions at once; a wider role reaches the user with
// its next token (docs/access.md).
//
// Errors: Invalid (a field, or nothing to change), NotFound (user outside
// the scope), Forbidden (a role or merchant the actor may not give, or the
// actor's own role or account), Conflict (username taken, last enabled full
// administrator).
func (s *Service) UpdateUser(ctx context.Context, a Actor, ch UserChanges) (ManagedUser, error) {
	if ch.Username == nil && len(ch.MerchantIDs) == 0 && len(ch.RoleIDs) == 0 && ch.IPRestrict == nil && ch.Disable == nil {
		return ManagedUser{}, apperr.Invalid(MsgNothingToUpdate)
	}
	var username string
	if ch.Username != nil {
		var err error
		if username, err = CheckUsername(*ch.Username); err != nil {
			return ManagedUser{}, err
		}
	}
	if len(ch.RoleIDs) > 1 {
		return ManagedUser{}, apperr.Invalid("roleIds must hold exactly one role.")
	}
	now := s.now()
	var (
		before, after ManagedUser
		ended         []string
		ranges        []IPRange
	)
	err := s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.LockUserAdministration(ctx); err != nil {
			return err
		}
		cur, err := tx.ManagedUserForUpdate(ctx, ch.UserID)
		if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !a.UserScope().Contains(cur)) {
			return apperr.NotFound(MsgUserNotFound)
		}
		if err != nil {
			return err
		}
		if cur.ID == a.ID && len(ch.RoleIDs) == 1 && !slices.Equal(cur.RoleIDs, ch.RoleIDs) {
			return apperr.Forbidden(msgOwnRole)
		}
		next := cur
		next.MerchantIDs = slices.Clone(cur.MerchantIDs)
		if ch.Username != nil {
			next.Username = username
		}
		if len(ch.MerchantIDs) > 0 {
			next.MerchantIDs = normalizeMerchants(ch.MerchantIDs)
		}
		roleID := int32(0)
		if len(cur.RoleIDs) == 1 {
			roleID = cur.RoleIDs[0]
		}
		if len(ch.RoleIDs) == 1 {
			roleID = ch.RoleIDs[0]
		}
		if len(ch.RoleIDs) == 1 || len(ch.MerchantIDs) > 0 {
			field := "roleIds"
			role, err := s.checkRoleAndMerchants(ctx, a, field, roleID, next.MerchantIDs)
			if err != nil {
				return err
			}
			next = withRole(next, role)
		}
		if ch.IPRestrict != nil {
			next.IsIPRestricted = *ch.IPRestrict
		}
		if ch.Disable != nil {
			next.IsDisabled = *ch.Disable
		}
		if err := checkSelfChange(a, cur, next); err != nil {
			return err
		}
		if FullAdmin(cur.Global, cur.Permissions) && !cur.IsDisabled && (!FullAdmin(next.Global, next.Permissions) || next.IsDisabled) {
			admins, err := tx.EnabledFullAdmins(ctx)
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(admins, func(id int64) bool { return id != cur.ID }) {
				return apperr.Conflict(MsgLastFullAdmin)
			}
		}
		if err := tx.UpdateUser(ctx, next, now); err != nil {
			if apperr.KindOf(err) == apperr.KindConflict {
				return apperr.Conflict("A user named %s already exists.", next.Username)
			}
			return err
		}
		reason := ""
		switch {
		case next.IsDisabled && !cur.IsDisabled:
			reason = ReasonDisabled
		case next.IsIPRestricted && !cur.IsIPRestricted:
			reason = ReasonIPRestricted
		case narrows(cur, next):
			reason = ReasonRoleChanged
		}
		if reason != "" {
			if ended, err = s.endSessions(ctx, tx, cur.ID, reason, now); err != nil {
				return err
			}
		}
		if next.IsIPRestricted != cur.IsIPRestricted {
			if ranges, err = tx.AllowedRanges(ctx, cur.ID); err != nil {
				return err
			}
		}
		before, after = cur, next
		b, af := diffFields(userFields(cur), userFields(next))
		if len(af) == 0 {
			return nil
		}
		return s.audit(ctx, tx, a, "user.updated", cur.ID, cur.Username, b, af, now)
	})
	if err != nil {
		return ManagedUser{}, err
	}
	s.revokeInCache(ctx, ended)
	if before.IsIPRestricted != after.IsIPRestricted {
		s.mirrorAllowList(ctx, after.ID, ranges)
	}
	return after, nil
}

// MsgLastFullAdmin refuses a change that would leave no enabled full
// administrator (FullAdmin).
const MsgLastFullAdmin = "The last enabled full administrator (every permission, every merchant) cannot lose that role or be disabled."

// msgOwnRole refuses a change of the caller's own role.
const msgOwnRole = "You cannot change your own role."

// checkSelfChange refuses the changes nobody may make to their own account:
// changing its role (before custom roles: giving up the Admin or Merchant
// Admin role it manages users by), or disabling itself.
func checkSelfChange(a Actor, cur, next ManagedUser) error {
	if cur.ID != a.ID {
		return nil
	}
	if !slices.Equal(cur.RoleIDs, next.RoleIDs) {
		return apperr.Forbidden(msgOwnRole)
	}
	if next.IsDisabled {
		return apperr.Forbidden("You cannot disable your own account.")
	}
	return nil
}

// narrows reports whether next gives the user less access than cur: a
// permission lost, the merchant-wide scope lost, or (merchant-scoped) a
// merchant removed. Its sessions then end at once, rather than at the next
// token.
func narrows(cur, next ManagedUser) bool {
	if len(access.Missing(next.Permissions, cur.Permissions)) > 0 || cur.Global && !next.Global {
		return true
	}
	return !next.Global && slices.ContainsFunc(cur.MerchantIDs, func(m int32) bool { return !slices.Contains(next.MerchantIDs, m) })
}

// endSessions revokes every live session of a user within tx and announces
// each; the caller revokes the returned ids in the cache after the commit.
func (s *Service) endSessions(ctx context.Context, tx Tx, userID int64, reason string, now time.Time) ([]string, error) {
	ended, err := tx.RevokeUserSessions(ctx, userID, reason, now)
	if err != nil {
		return nil, err
	}
	return ended, s.announceEnded(ctx, tx, userID, ended, now)
}

// announceEnded publishes a SessionRevoked (TERMINATED) for each of ended.
func (s *Service) announceEnded(ctx context.Context, tx Tx, userID int64, ended []string, now time.Time) error {
	for _, sid := range ended {
		if err := tx.Publish(ctx, &eventsv1.SessionRevoked{
			SessionId: sid, UserId: userID,
			Reason:    eventsv1.SessionRevokedReason_SESSION_REVOKED_REASON_TERMINATED,
			RevokedAt: timestamppb.New(now),
		}); err != nil {
			return err
		}
	}
	return nil
}

// revokeInCache puts sessions on the revocation list every service checks,
// so that their access tokens are refused at the next call.
func (s *Service) revokeInCache(ctx context.Context, sessionIDs []string) {
	for _, sid := range sessionIDs {
		if err := s.revoker.Revoke(ctx, sid, s.cfg.AccessTTL); err != nil {
			s.log.ErrorContext(ctx, "revoke session in cache", "session_id", sid, "err", err)
		}
	}
}

// MsgNewPasswordUnchanged refuses a reset to the user's current password.
const MsgNewPasswordUnchanged = "newPassword must differ from the user's current password."

// ChangeUserPassword sets the password of a user in the actor's scope
// (temporary: the user must replace it at the next sign-in) and ends every
// session of that user. bodyUserID, when not 0, must equal userID.
//
// Errors: Invalid (password rules, userId mismatch), NotFound (user outside
// the scope).
func (s *Service) ChangeUserPassword(ctx context.Context, a Actor, userID, bodyUserID int64, password string, temporary bool) error {
	if bodyUserID != 0 && bodyUserID != userID {
		return apperr.Invalid("userId must match the user id of the path.")
	}
	target, err := s.store.ManagedUserByID(ctx, userID)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !a.UserScope().Contains(target)) {
		return apperr.NotFound(MsgUserNotFound)
	}
	if err != nil {
		return err
	}
	if err := s.checkPassword("newPassword", target.Username, password); err != nil {
		return err
	}
	current, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return err
	}
	same, err := s.verifyPassword(ctx, current.PasswordHash, password)
	if err != nil && !errors.Is(err, errMalformedHash) {
		return fmt.Errorf("compare new password of user %d: %w", userID, err)
	}
	if same {
		return apperr.Invalid(MsgNewPasswordUnchanged)
	}
	hash, err := HashPassword(password, s.cfg.Argon2)
	if err != nil {
		return err
	}
	now := s.now()
	var ended []string
	err = s.store.Tx(ctx, func(tx Tx) error {
		cur, err := tx.ManagedUserForUpdate(ctx, userID)
		if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !a.UserScope().Contains(cur)) {
			return apperr.NotFound(MsgUserNotFound)
		}
		if err != nil {
			return err
		}
		if err := tx.SetPassword(ctx, cur.ID, hash, temporary, now); err != nil {
			return err
		}
		if ended, err = s.endSessions(ctx, tx, cur.ID, ReasonPasswordReset, now); err != nil {
			return err
		}
		if err := tx.Publish(ctx, &eventsv1.PasswordChanged{
			UserId: cur.ID, Username: cur.Username, IsTemporary: temporary, ChangedAt: timestamppb.New(now),
		}); err != nil {
			return err
		}
		b, af := diffFields(map[string]any{"isTemporaryPassword": cur.IsTemporaryPassword},
			map[string]any{"isTemporaryPassword": temporary})
		return s.audit(ctx, tx, a, "user.password_reset", cur.ID, cur.Username, b, af, now)
	})
	if err != nil {
		return err
	}
	s.revokeInCache(ctx, ended)
	s.log.InfoContext(ctx, "password reset", "user_id", userID, "by", a.ID, "sessions_ended", len(ended))
	return nil
}
