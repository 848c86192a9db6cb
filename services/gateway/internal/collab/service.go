package collab

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Messages for things that are missing or outside the caller's scope (the
// two are not told apart, so that a scope cannot be probed).
const (
	msgCollabNotFound        = "The collaboration was not found."
	msgCollabPayTypeNotFound = "The collaboration pay type was not found."
	msgMerchantNotFound      = "The merchant was not found."
	msgProviderNotFound      = "The provider was not found."
)

// Service reads and changes providers and collabs,
// recording every change in the activity log.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns a service on store; now is the clock (time.Now when
// nil).
func NewService(store Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, now: now}
}

// Providers returns every provider with the pay types it offers.
func (s *Service) Providers(ctx context.Context) ([]Provider, error) {
	ps, err := s.store.Providers(ctx)
	if err != nil {
		return nil, fmt.Errorf("list providers: %w", err)
	}
	return ps, nil
}

// Collabs returns the collabs within scope, of one merchant when merchantID
// is not 0. A merchant outside scope, or unknown, is not found.
func (s *Service) Collabs(ctx context.Context, scope merchant.Scope, merchantID int32) ([]Collab, error) {
	if merchantID != 0 {
		if err := s.checkMerchant(ctx, scope, merchantID); err != nil {
			return nil, err
		}
	}
	cs, err := s.store.Collabs(ctx, CollabFilter{Scope: scope, MerchantID: merchantID})
	if err != nil {
		return nil, fmt.Errorf("list collabs: %w", err)
	}
	return cs, nil
}

// ProviderCollabs returns a provider's collabs within scope. An unknown
// provider is not found.
func (s *Service) ProviderCollabs(ctx context.Context, scope merchant.Scope, providerID int32) ([]Collab, error) {
	if _, err := s.store.Provider(ctx, providerID); err != nil {
		return nil, notFoundAs(err, msgProviderNotFound)
	}
	cs, err := s.store.Collabs(ctx, CollabFilter{Scope: scope, ProviderID: providerID})
	if err != nil {
		return nil, fmt.Errorf("list collabs of provider %d: %w", providerID, err)
	}
	return cs, nil
}

// Collab returns one collab. A collab outside scope, or unknown, is not
// found.
func (s *Service) Collab(ctx context.Context, scope merchant.Scope, id int32) (Collab, error) {
	c, err := s.store.Collab(ctx, id)
	if err != nil {
		return Collab{}, notFoundAs(err, msgCollabNotFound)
	}
	if !scope.Includes(c.Merchant.ID) {
		return Collab{}, apperr.NotFound(msgCollabNotFound)
	}
	return c, nil
}

func (s *Service) checkMerchant(ctx context.Context, scope merchant.Scope, id int32) error {
	if !scope.Includes(id) {
		return apperr.NotFound(msgMerchantNotFound)
	}
	if _, err := s.store.Merchant(ctx, id); err != nil {
		return notFoundAs(err, msgMerchantNotFound)
	}
	return nil
}

// notFoundAs replaces the message of a not-found error with msg and leaves
// other errors alone.
func notFoundAs(err error, msg string) error {
	if apperr.KindOf(err) == apperr.KindNotFound {
		return apperr.New(apperr.KindNotFound, err, "%s", msg)
	}
	return err
}

// changeCollab runs fn on the locked collab collabID (within the actor's
// scope) in a transaction, records the activity fn returns (nil: nothing
// changed) and returns the collab as the transaction leaves it.
func (s *Service) changeCollab(ctx context.Context, actor activity.Actor, collabID int32, notFound string, fn func(Tx, Collab) (*activity.Entry, error)) (Collab, error) {
	if collabID <= 0 {
		return Collab{}, apperr.NotFound(notFound)
	}
	return s.changeCollabBy(ctx, actor, func(context.Context, Tx) (int32, error) { return collabID, nil }, notFound, fn)
}

// changeCollabBy is changeCollab with the collab id looked up inside the
// transaction.
func (s *Service) changeCollabBy(ctx context.Context, actor activity.Actor, lookup func(context.Context, Tx) (int32, error), notFound string, fn func(Tx, Collab) (*activity.Entry, error)) (Collab, error) {
	var out Collab
	err := s.store.Tx(ctx, func(tx Tx) error {
		id, err := lookup(ctx, tx)
		if err != nil {
			return err
		}
		c, err := tx.CollabForUpdate(ctx, id)
		if err != nil {
			return notFoundAs(err, notFound)
		}
		if !actor.Scope.Includes(c.Merchant.ID) {
			return apperr.NotFound(notFound)
		}
		a, err := fn(tx, c)
		if err != nil {
			return err
		}
		if a == nil {
			out = c
			return nil
		}
		if err := s.record(ctx, tx, actor, *a); err != nil {
			return err
		}
		out, err = tx.CollabForUpdate(ctx, id)
		return err
	})
	if err != nil {
		return Collab{}, err
	}
	return out, nil
}

// stamp returns now in the precision Postgres keeps.
func (s *Service) stamp() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// record writes the activity entry a, made by actor now, and queues its
// ActivityRecorded event in tx.
func (s *Service) record(ctx context.Context, tx Tx, actor activity.Actor, a activity.Entry) error {
	return s.recordAt(ctx, tx, actor, a, s.stamp())
}

func (s *Service) recordAt(ctx context.Context, tx Tx, actor activity.Actor, a activity.Entry, at time.Time) error {
	return activity.Record(ctx, tx, actor, a, at)
}

// collabActivity starts an entry about c.
func collabActivity(c Collab, action activity.ActionType) activity.Entry {
	return activity.Entry{
		MerchantID: c.Merchant.ID, MerchantName: c.Merchant.Name,
		ProviderID: c.Provider.ID, ProviderName: c.Provider.Name,
		CollabID: c.ID, ActionType: action,
	}
}
