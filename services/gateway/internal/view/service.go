package view

import (
	"context"
	"slices"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Caller is the signed-in user a call is made for, as their token says.
type Caller struct {
	UserID   int64
	Username string
	Scope    merchant.Scope
	// Permissions are the token's permissions.
	Permissions []string
}

// may reports whether c holds the permission of l's views.
func (c Caller) may(l List) bool { return slices.Contains(c.Permissions, l.Permission()) }

// sees reports whether c may open v: their own, or shared with their scope,
// and of a list whose permission they hold.
func (c Caller) sees(v View) bool {
	if !c.may(v.List) {
		return false
	}
	if v.UserID == c.UserID {
		return true
	}
	key := ScopeKey(c.Scope)
	return v.Shared && key != "" && ScopeKey(v.Scope) == key
}

// Service serves the saved-view calls.
type Service struct {
	store   Store
	collabs Collabs
}

// NewService returns the service on store; collabs says which collabs a
// reader may see (for the dropped filters).
func NewService(store Store, collabs Collabs) *Service {
	return &Service{store: store, collabs: collabs}
}

const msgNotFound = "The view was not found."

// forbiddenList is the refusal of a call naming a list c may not read.
func forbiddenList(l List) error {
	return apperr.Forbidden("The %s list's views need the %s permission.", l, l.Permission())
}

// List answers the views of list c may open: their own, then the ones
// shared with their scope.
func (s *Service) List(ctx context.Context, c Caller, list string) ([]View, error) {
	l, err := ParseList(list)
	if err != nil {
		return nil, err
	}
	if !c.may(l) {
		return nil, forbiddenList(l)
	}
	return s.store.List(ctx, c.UserID, l, ScopeKey(c.Scope))
}

// visible answers view id if c may open it (not found otherwise, whatever
// exists).
func (s *Service) visible(ctx context.Context, c Caller, id int64) (View, error) {
	v, err := s.store.Get(ctx, c.UserID, id)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !c.sees(v)) {
		return View{}, apperr.NotFound(msgNotFound)
	}
	return v, err
}

// own answers view id if c owns it: not found when c may not see it,
// forbidden when it is someone else's shared view.
func (s *Service) own(ctx context.Context, c Caller, id int64) (View, error) {
	v, err := s.visible(ctx, c, id)
	if err != nil {
		return View{}, err
	}
	if !v.Mine(c.UserID) {
		return View{}, apperr.Forbidden("Only the view's owner can change it.")
	}
	return v, nil
}

// Get answers view id as c may open it now, with the collabId and
// merchantId filters c can no longer see removed from its query and named
// in the second answer (the stored view is unchanged).
func (s *Service) Get(ctx context.Context, c Caller, id int64) (View, []string, error) {
	v, err := s.visible(ctx, c, id)
	if err != nil {
		return View{}, nil, err
	}
	q, dropped, err := dropFilters(ctx, s.collabs, c.Scope, v.Query)
	if err != nil {
		return View{}, nil, err
	}
	v.Query = q
	return v, dropped, nil
}

// Create saves a new view for c, with c's scope and name.
func (s *Service) Create(ctx context.Context, c Caller, in Input) (View, error) {
	v, err := validate(in, true)
	if err != nil {
		return View{}, err
	}
	if !c.may(v.List) {
		return View{}, forbiddenList(v.List)
	}
	v.UserID, v.OwnerName, v.Scope = c.UserID, c.Username, ownerScope(c.Scope)
	return s.store.Create(ctx, v, MaxPerList)
}

// Update replaces c's view id (its list stays); the view takes c's current
// scope and name.
func (s *Service) Update(ctx context.Context, c Caller, id int64, in Input) (View, error) {
	v, err := validate(in, false)
	if err != nil {
		return View{}, err
	}
	old, err := s.own(ctx, c, id)
	if err != nil {
		return View{}, err
	}
	v.ID, v.List, v.UserID, v.OwnerName, v.Scope = id, old.List, c.UserID, c.Username, ownerScope(c.Scope)
	v, err = s.store.Update(ctx, v)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return View{}, apperr.NotFound(msgNotFound)
	}
	return v, err
}

// Delete removes c's view id.
func (s *Service) Delete(ctx context.Context, c Caller, id int64) error {
	if _, err := s.own(ctx, c, id); err != nil {
		return err
	}
	if err := s.store.Delete(ctx, c.UserID, id); err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return apperr.NotFound(msgNotFound)
		}
		return err
	}
	return nil
}

// SetDefault makes view id c's default for list and answers it; id 0
// clears the default (ok false).
func (s *Service) SetDefault(ctx context.Context, c Caller, list string, id int64) (v View, ok bool, err error) {
	l, err := ParseList(list)
	if err != nil {
		return View{}, false, err
	}
	if !c.may(l) {
		return View{}, false, forbiddenList(l)
	}
	if id == 0 {
		return View{}, false, s.store.SetDefault(ctx, c.UserID, l, 0)
	}
	if v, err = s.visible(ctx, c, id); err != nil {
		return View{}, false, err
	}
	if v.List != l {
		return View{}, false, apperr.Invalid("viewId is a view of the %s list, not of %s.", v.List, l)
	}
	if err := s.store.SetDefault(ctx, c.UserID, l, id); err != nil {
		return View{}, false, err
	}
	v.IsDefault = true
	return v, true, nil
}

// ownerScope is s as a view keeps it: no merchant ids with all merchants,
// sorted ids otherwise.
func ownerScope(s merchant.Scope) merchant.Scope {
	if s.All {
		return merchant.Scope{All: true, MerchantIDs: []int32{}}
	}
	return merchant.Scope{MerchantIDs: SortedIDs(s.MerchantIDs)}
}
