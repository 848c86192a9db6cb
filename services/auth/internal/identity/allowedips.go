package identity

import (
	"context"
	"net/netip"
	"strings"
	"unicode/utf8"

	"github.com/paygate/paygate/services/internal/apperr"
)

// MsgAllowedIPNotFound answers for a range that does not exist or whose user
// lies outside the caller's scope.
const MsgAllowedIPNotFound = "Allowed IP not found."

// maxAllowedIPName bounds the name of a range.
const maxAllowedIPName = 100

// AllowedIPInput is a range as a caller writes it.
type AllowedIPInput struct {
	Name   string
	FromIP string
	ToIP   string
}

// CheckAllowedIP validates a range: a name of at most 100 characters, and
// two addresses of one family (IPv4 or IPv6), the first not above the
// second.
//
// Errors: Invalid, naming name, fromIP or toIP.
func CheckAllowedIP(in AllowedIPInput) (name string, from, to netip.Addr, err error) {
	name = strings.TrimSpace(in.Name)
	if name == "" {
		return "", from, to, apperr.Invalid("name is required.")
	}
	if utf8.RuneCountInString(name) > maxAllowedIPName {
		return "", from, to, apperr.Invalid("name must be at most %d characters long.", maxAllowedIPName)
	}
	if from, err = parseIP("fromIP", in.FromIP); err != nil {
		return "", from, to, err
	}
	if to, err = parseIP("toIP", in.ToIP); err != nil {
		return "", from, to, err
	}
	if from.Is4() != to.Is4() {
		return "", from, to, apperr.Invalid("toIP must be of the same family as fromIP (both IPv4 or both IPv6).")
	}
	if to.Less(from) {
		return "", from, to, apperr.Invalid("toIP must not be below fromIP.")
	}
	return name, from, to, nil
}

func parseIP(field, s string) (netip.Addr, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return netip.Addr{}, apperr.Invalid("%s is required.", field)
	}
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return netip.Addr{}, apperr.Invalid("%s is not a valid IPv4 or IPv6 address.", field)
	}
	return a.Unmap(), nil
}

// scopedUser returns the user userID when it lies in the actor's user scope.
//
// Errors: NotFound.
func (s *Service) scopedUser(ctx context.Context, a Actor, userID int64) (ManagedUser, error) {
	u, err := s.store.ManagedUserByID(ctx, userID)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !a.UserScope().Contains(u)) {
		return ManagedUser{}, apperr.NotFound(MsgUserNotFound)
	}
	return u, err
}

// ListAllowedIPs lists the ranges of a user in the actor's scope, oldest
// firs.store.
//
// Errors: NotFound (user outside the scope).
func (s *Service) ListAllowedIPs(ctx context.Context, a Actor, userID int64) ([]AllowedIP, error) {
	if _, err := s.scopedUser(ctx, a, userID); err != nil {
		return nil, err
	}
	return s.store.AllowedIPs(ctx, userID)
}

// CreateAllowedIP adds a range to a user in the actor's scope and mirrors
// the user's ranges for the verifiers.
//
// Errors: Invalid (a field), NotFound (user outside the scope).
func (s *Service) CreateAllowedIP(ctx context.Context, a Actor, userID int64, in AllowedIPInput) (AllowedIP, error) {
	name, from, to, err := CheckAllowedIP(in)
	if err != nil {
		return AllowedIP{}, err
	}
	now := s.now()
	out := AllowedIP{UserID: userID, Name: name, From: from, To: to}
	var ranges []IPRange
	err = s.store.Tx(ctx, func(tx Tx) error {
		u, err := tx.ManagedUserForUpdate(ctx, userID)
		if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !a.UserScope().Contains(u)) {
			return apperr.NotFound(MsgUserNotFound)
		}
		if err != nil {
			return err
		}
		if out.ID, err = tx.InsertAllowedIP(ctx, out, now); err != nil {
			return err
		}
		if ranges, err = tx.AllowedRanges(ctx, userID); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, "allowed_ip.created", u.ID, u.Username, nil, allowedIPFields(out), now)
	})
	if err != nil {
		return AllowedIP{}, err
	}
	s.mirrorAllowList(ctx, userID, ranges)
	return out, nil
}

// UpdateAllowedIP replaces a range's name and addresses. bodyUserID, when
// not 0, must be the range's user.
//
// Errors: Invalid (a field, userId mismatch), NotFound (no such range, or
// its user outside the scope).
func (s *Service) UpdateAllowedIP(ctx context.Context, a Actor, id, bodyUserID int64, in AllowedIPInput) (AllowedIP, error) {
	name, from, to, err := CheckAllowedIP(in)
	if err != nil {
		return AllowedIP{}, err
	}
	now := s.now()
	var (
		out    AllowedIP
		ranges []IPRange
	)
	err = s.store.Tx(ctx, func(tx Tx) error {
		cur, u, err := s.scopedAllowedIP(ctx, tx, a, id)
		if err != nil {
			return err
		}
		if bodyUserID != 0 && bodyUserID != cur.UserID {
			return apperr.Invalid("userId must be the user of the allowed IP.")
		}
		out = AllowedIP{ID: cur.ID, UserID: cur.UserID, Name: name, From: from, To: to}
		if err := tx.UpdateAllowedIP(ctx, out); err != nil {
			return err
		}
		if ranges, err = tx.AllowedRanges(ctx, cur.UserID); err != nil {
			return err
		}
		b, af := diffFields(allowedIPFields(cur), allowedIPFields(out))
		if len(af) == 0 {
			return nil
		}
		b["id"], af["id"] = cur.ID, cur.ID
		return s.audit(ctx, tx, a, "allowed_ip.updated", u.ID, u.Username, b, af, now)
	})
	if err != nil {
		return AllowedIP{}, err
	}
	s.mirrorAllowList(ctx, out.UserID, ranges)
	return out, nil
}

// DeleteAllowedIP removes a range of a user in the actor's scope.
//
// Errors: NotFound (no such range, or its user outside the scope).
func (s *Service) DeleteAllowedIP(ctx context.Context, a Actor, id int64) error {
	now := s.now()
	var (
		userID int64
		ranges []IPRange
	)
	err := s.store.Tx(ctx, func(tx Tx) error {
		cur, u, err := s.scopedAllowedIP(ctx, tx, a, id)
		if err != nil {
			return err
		}
		userID = cur.UserID
		if err := tx.DeleteAllowedIP(ctx, cur.ID); err != nil {
			return err
		}
		if ranges, err = tx.AllowedRanges(ctx, cur.UserID); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, "allowed_ip.deleted", u.ID, u.Username, allowedIPFields(cur), nil, now)
	})
	if err != nil {
		return err
	}
	s.mirrorAllowList(ctx, userID, ranges)
	return nil
}

// scopedAllowedIP locks range id and checks that its user lies in the
// actor's scope.
func (s *Service) scopedAllowedIP(ctx context.Context, tx Tx, a Actor, id int64) (AllowedIP, ManagedUser, error) {
	cur, err := tx.AllowedIPForUpdate(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return AllowedIP{}, ManagedUser{}, apperr.NotFound(MsgAllowedIPNotFound)
	}
	if err != nil {
		return AllowedIP{}, ManagedUser{}, err
	}
	u, err := s.store.ManagedUserByID(ctx, cur.UserID)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !a.UserScope().Contains(u)) {
		return AllowedIP{}, ManagedUser{}, apperr.NotFound(MsgAllowedIPNotFound)
	}
	if err != nil {
		return AllowedIP{}, ManagedUser{}, err
	}
	return cur, u, nil
}
