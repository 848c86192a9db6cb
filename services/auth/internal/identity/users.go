package identity

import (
	"context"
	"net/netip"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Role is a role a user may hold.
type Role struct {
	ID   int32
	Name string
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
}

// HasRole reports whether the user holds the role named name.
func (u ManagedUser) HasRole(name string) bool { return slices.Contains(u.Roles, name) }

// hasGlobalRole reports whether the user holds Admin or Support.
func (u ManagedUser) hasGlobalRole() bool {
	return slices.ContainsFunc(access.GlobalRoles, u.HasRole)
}

// Scope says which users (and so which sessions) a caller reaches.
type Scope struct {
	// All is true for an Admin: every user.
	All bool
	// ByMerchants admits the users whose merchants are a non-empty subset of
	// MerchantIDs and who hold neither Admin nor Support.
	ByMerchants bool
	MerchantIDs []int32
	// UserID admits this user too (0: nobody).
	UserID int64
}

// Contains reports whether u is within the scope.
func (sc Scope) Contains(u ManagedUser) bool {
	if sc.All || (sc.UserID != 0 && u.ID == sc.UserID) {
		return true
	}
	if !sc.ByMerchants || len(u.MerchantIDs) == 0 || u.hasGlobalRole() {
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
	Offset     int
	Limit      int
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
	// Roles lists every role in id order.
	Roles(ctx context.Context) ([]Role, error)
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
	// EnabledAdmins lists the ids of enabled users holding the Admin role.
	EnabledAdmins(ctx context.Context) ([]int64, error)
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
	MsgMerchantNotFound = "Merchant not found."
	MsgNothingToUpdate  = "Nothing to update."
)

// Actor is the signed-in caller of an administration call, as stored now.
type Actor struct {
	User
	SessionID string
	IP        string
}

// IsAdmin reports whether the actor holds the Admin role.
func (a Actor) IsAdmin() bool { return slices.Contains(a.Roles, access.RoleAdmin) }

// UserScope is the users the actor sees and manages: every user for an
// Admin, otherwise the users of its own merchants.
func (a Actor) UserScope() Scope {
	if a.IsAdmin() {
		return Scope{All: true}
	}
	return Scope{ByMerchants: true, MerchantIDs: a.MerchantIDs}
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
// merchants (an Admin may filter by any).
func (a Actor) checkMerchantFilter(id int32) error {
	if id != 0 && !a.IsAdmin() && !slices.Contains(a.MerchantIDs, id) {
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

// GivableRoles lists the roles the actor may give: all of them for an
// Admin, the merchant roles (neither Admin nor Support) for anyone else.
func (s *Service) GivableRoles(ctx context.Context, a Actor) ([]Role, error) {
	all, err := s.store.Roles(ctx)
	if err != nil {
		return nil, err
	}
	if a.IsAdmin() {
		return all, nil
	}
	return slices.DeleteFunc(all, func(r Role) bool { return slices.Contains(access.GlobalRoles, r.Name) }), nil
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

// ListUsers returns a page of the users in the actor's scope.
//
// Errors: Invalid (paging), NotFound (merchant filter outside the actor's
// merchants).
func (s *Service) ListUsers(ctx context.Context, a Actor, search string, merchantID int32, offset, limit int) (UserPage, error) {
	if err := a.checkMerchantFilter(merchantID); err != nil {
		return UserPage{}, err
	}
	return s.store.ListUsers(ctx, UserQuery{Scope: a.UserScope(), Search: strings.TrimSpace(search), MerchantID: merchantID, Offset: offset, Limit: limit})
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
// by field) and merchants, and that a merchant role comes with at least one
// merchant. It returns the role.
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
	if !a.IsAdmin() && slices.Contains(access.GlobalRoles, role.Name) {
		return Role{}, apperr.Forbidden("You may not give the role %s.", role.Name)
	}
	for _, m := range merchants {
		if m <= 0 {
			return Role{}, apperr.Invalid("merchantIds must hold merchant ids (positive numbers).")
		}
		if !a.IsAdmin() && !slices.Contains(a.MerchantIDs, m) {
			return Role{}, apperr.Forbidden("You may give only your own merchants; merchant %d is not one of them.", m)
		}
	}
	if !slices.Contains(access.GlobalRoles, role.Name) && len(merchants) == 0 {
		return Role{}, apperr.Invalid("merchantIds must hold at least one merchant for the role %s.", role.Name)
	}
	return role, nil
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
	u := ManagedUser{
		Username: username, MerchantIDs: merchants, RoleIDs: []int32{role.ID}, Roles: []string{role.Name},
		IsIPRestricted: in.IsIPRestricted, IsTemporaryPassword: in.Temporary,
	}
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

// UpdateUser changes a user in the actor's scope. Disabling it, or
// restricting it to its allowed IPs, ends its sessions.
//
// Errors: Invalid (a field, or nothing to change), NotFound (user outside
// the scope), Forbidden (a role or merchant the actor may not give, or the
// actor's own admin right or account), Conflict (username taken, last
// enabled Admin).
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
			next.RoleIDs, next.Roles = []int32{role.ID}, []string{role.Name}
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
		if cur.HasRole(access.RoleAdmin) && !cur.IsDisabled && (!next.HasRole(access.RoleAdmin) || next.IsDisabled) {
			admins, err := tx.EnabledAdmins(ctx)
			if err != nil {
				return err
			}
			if !slices.ContainsFunc(admins, func(id int64) bool { return id != cur.ID }) {
				return apperr.Conflict("The last enabled Admin cannot lose the Admin role or be disabled.")
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

// checkSelfChange refuses the changes nobody may make to their own account:
// giving up the admin right it manages users by, or disabling itself.
func checkSelfChange(a Actor, cur, next ManagedUser) error {
	if cur.ID != a.ID {
		return nil
	}
	for _, role := range []string{access.RoleAdmin, access.RoleMerchantAdmin} {
		if cur.HasRole(role) && !next.HasRole(role) {
			return apperr.Forbidden("You cannot remove your own %s role.", role)
		}
	}
	if next.IsDisabled {
		return apperr.Forbidden("You cannot disable your own account.")
	}
	return nil
}

// endSessions revokes every live session of a user within tx and announces
// each; the caller revokes the returned ids in the cache after the commit.
func (s *Service) endSessions(ctx context.Context, tx Tx, userID int64, reason string, now time.Time) ([]string, error) {
	ended, err := tx.RevokeUserSessions(ctx, userID, reason, now)
	if err != nil {
		return nil, err
	}
	for _, sid := range ended {
		if err := tx.Publish(ctx, &eventsv1.SessionRevoked{
			SessionId: sid, UserId: userID,
			Reason:    eventsv1.SessionRevokedReason_SESSION_REVOKED_REASON_TERMINATED,
			RevokedAt: timestamppb.New(now),
		}); err != nil {
			return nil, err
		}
	}
	return ended, nil
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
