package collab

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
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

// Service reads and changes providers, collabs and the maintenance switch,
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

// MaintenanceEnabled reports whether maintenance mode is on.
func (s *Service) MaintenanceEnabled(ctx context.Context) (bool, error) {
	on, err := s.store.MaintenanceEnabled(ctx)
	if err != nil {
		return false, fmt.Errorf("read maintenance mode: %w", err)
	}
	return on, nil
}

// CheckAcceptingTransactions returns a failed-precondition error while
// maintenance mode is on: the payment path calls it before accepting a new
// transaction.
func (s *Service) CheckAcceptingTransactions(ctx context.Context) error {
	on, err := s.MaintenanceEnabled(ctx)
	if err != nil {
		return err
	}
	if on {
		return apperr.FailedPrecondition("The gateway is in maintenance mode and accepts no new transactions. Please try again later.")
	}
	return nil
}

// Activity returns the activity log entries r asks for within scope, newest
// first. A merchant outside scope, or unknown, is not found; a bad range or
// limit is invalid.
func (s *Service) Activity(ctx context.Context, scope merchant.Scope, r activity.Request) ([]activity.Entry, error) {
	q, err := r.Query(scope, s.now())
	if err != nil {
		return nil, err
	}
	if q.MerchantID != 0 {
		if err := s.checkMerchant(ctx, scope, q.MerchantID); err != nil {
			return nil, err
		}
	}
	as, err := s.store.Activity(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	return as, nil
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

// PayTypeChannels sets the channel switches of one pay type; nil keeps a
// switch (on a new collab: what the pay type supports).
type PayTypeChannels struct {
	// PayTypeID is the pay type's id.
	PayTypeID int32
	// IsCashInEnabled is the new cash-in switch, or nil.
	IsCashInEnabled *bool
	// IsCashOutEnabled is the new cash-out switch, or nil.
	IsCashOutEnabled *bool
}

// SettingsChange changes a collab's settings and pay type switches.
type SettingsChange struct {
	// CollabID is the collab to change.
	CollabID int32
	// Settings are the settings to change by key (see Settings.Apply).
	Settings map[string]string
	// PayTypes are the pay type switches to change.
	PayTypes []PayTypeChannels
}

// UpdateSettings changes the settings and pay type switches ch names and
// returns the collab afterwards. Turning on a direction the provider or pay
// type lacks, an unknown key or value, or a pay type not on the collab is
// invalid; a collab outside the actor's scope is not found. A change that
// changes nothing records nothing.
func (s *Service) UpdateSettings(ctx context.Context, actor activity.Actor, ch SettingsChange) (Collab, error) {
	if ch.CollabID <= 0 {
		return Collab{}, apperr.Invalid("Give the collabId of the collaboration to change.")
	}
	return s.changeCollab(ctx, actor, ch.CollabID, msgCollabNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		next, _, err := c.Settings.Apply(ch.Settings)
		if err != nil {
			return nil, err
		}
		if err := checkDirections(c.Provider, c.Settings, next); err != nil {
			return nil, err
		}
		pts, err := applyChannels(c, ch.PayTypes)
		if err != nil {
			return nil, err
		}

		before, after, keys := c.Settings.diff(next)
		oldValue, newValue := map[string]any{}, map[string]any{}
		for _, k := range keys {
			oldValue[k], newValue[k] = before[k], after[k]
		}
		var changes []string
		channels := map[string]bool{}
		for _, k := range keys {
			changes = append(changes, fmt.Sprintf("%s %s → %s", k, show(before[k]), show(after[k])))
			channels[channelOfKey(k)] = true
		}
		var changedPayTypes []CollabPayType
		oldPT, newPT := map[string]any{}, map[string]any{}
		for i, pt := range pts {
			was := c.PayTypes[i]
			if pt.IsCashInEnabled == was.IsCashInEnabled && pt.IsCashOutEnabled == was.IsCashOutEnabled {
				continue
			}
			changedPayTypes = append(changedPayTypes, pt)
			o, n := map[string]bool{}, map[string]bool{}
			if pt.IsCashInEnabled != was.IsCashInEnabled {
				o[KeyIsCashInEnabled], n[KeyIsCashInEnabled] = was.IsCashInEnabled, pt.IsCashInEnabled
				changes = append(changes, fmt.Sprintf("%s %s %t → %t", pt.Label(), KeyIsCashInEnabled, was.IsCashInEnabled, pt.IsCashInEnabled))
				channels[activity.ChannelCashIn] = true
			}
			if pt.IsCashOutEnabled != was.IsCashOutEnabled {
				o[KeyIsCashOutEnabled], n[KeyIsCashOutEnabled] = was.IsCashOutEnabled, pt.IsCashOutEnabled
				changes = append(changes, fmt.Sprintf("%s %s %t → %t", pt.Label(), KeyIsCashOutEnabled, was.IsCashOutEnabled, pt.IsCashOutEnabled))
				channels[activity.ChannelCashOut] = true
			}
			oldPT[pt.Code], newPT[pt.Code] = o, n
		}
		if len(changes) == 0 {
			return nil, nil
		}
		if len(changedPayTypes) > 0 {
			oldValue["PayTypes"], newValue["PayTypes"] = oldPT, newPT
		}

		if len(keys) > 0 {
			updated := c
			updated.Settings = next
			if err := tx.UpdateCollab(ctx, updated); err != nil {
				return nil, err
			}
		}
		for _, pt := range changedPayTypes {
			if err := tx.UpdateCollabPayType(ctx, pt); err != nil {
				return nil, err
			}
		}

		a := collabActivity(c, activity.ActionSettings)
		a.Message = fmt.Sprintf("Settings of %s changed: %s.", c.Name(), strings.Join(changes, ", "))
		var sensitive []string
		if next.Mode != c.Settings.Mode {
			sensitive = append(sensitive, "Collab mode changed")
		}
		if c.Settings.IsEnabled && !next.IsEnabled {
			sensitive = append(sensitive, "Collab disabled")
		}
		if len(sensitive) > 0 {
			a.Message = activity.SensitiveMarker + ": " + a.Message
			a.SensitiveActionName = strings.Join(sensitive, ", ")
		}
		if len(keys) == 0 && len(changedPayTypes) == 1 {
			setPayType(&a, changedPayTypes[0].PayType)
		}
		if len(channels) == 1 {
			for ch := range channels {
				a.Channel = ch
			}
		}
		a.OldValue, a.NewValue = activity.Value(oldValue), activity.Value(newValue)
		a.Count = int32(len(changes))
		return &a, nil
	})
}

// channelOfKey returns the channel a setting concerns, or "" for both.
func channelOfKey(k string) string {
	switch k {
	case KeyIsCashInEnabled, KeyValidateCashIn, KeyIsCreditingToClientsEnabled:
		return activity.ChannelCashIn
	case KeyIsCashOutEnabled, KeyValidateCashOut, KeyIsWithdrawFromClientsEnabled:
		return activity.ChannelCashOut
	}
	return ""
}

// show returns a value for a message, "none" for empty.
func show(v string) string {
	if v == "" {
		return "none"
	}
	return v
}

// applyChannels returns c's pay types with the switches of chs applied.
// Every pay type must be on the collab, at most once, and may not turn on a
// direction it lacks. Errors are invalid.
func applyChannels(c Collab, chs []PayTypeChannels) ([]CollabPayType, error) {
	pts := slices.Clone(c.PayTypes)
	seen := map[int32]bool{}
	for _, ch := range chs {
		i, ok := c.payType(ch.PayTypeID)
		if !ok {
			return nil, apperr.Invalid("Pay type %d is not on this collaboration.", ch.PayTypeID)
		}
		if seen[ch.PayTypeID] {
			return nil, apperr.Invalid("Pay type %d is listed twice.", ch.PayTypeID)
		}
		seen[ch.PayTypeID] = true
		pt := pts[i]
		if ch.IsCashInEnabled != nil {
			pt.IsCashInEnabled = *ch.IsCashInEnabled
		}
		if ch.IsCashOutEnabled != nil {
			pt.IsCashOutEnabled = *ch.IsCashOutEnabled
		}
		if err := checkPayTypeDirections(c.Provider, pts[i], pt); err != nil {
			return nil, err
		}
		pts[i] = pt
	}
	return pts, nil
}

// checkPayTypeDirections refuses turning on a direction that the pay type
// or the provider lacks. Only switches that change to on are checked.
func checkPayTypeDirections(p ProviderRef, before, after CollabPayType) error {
	if after.IsCashInEnabled && !before.IsCashInEnabled && (!after.CashIn || !p.SupportsCashIn) {
		return apperr.Invalid("%s does not support cash-in with %s, so it cannot be enabled.", p.Name, after.Label())
	}
	if after.IsCashOutEnabled && !before.IsCashOutEnabled && (!after.CashOut || !p.SupportsCashOut) {
		return apperr.Invalid("%s does not support cash-out with %s, so it cannot be enabled.", p.Name, after.Label())
	}
	return nil
}

// SetCollabEnabled enables or disables a collab. A collab outside the
// actor's scope is not found; setting the state it already has records
// nothing.
func (s *Service) SetCollabEnabled(ctx context.Context, actor activity.Actor, collabID int32, enabled bool) (Collab, error) {
	return s.changeCollab(ctx, actor, collabID, msgCollabNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		if c.Settings.IsEnabled == enabled {
			return nil, nil
		}
		updated := c
		updated.Settings.IsEnabled = enabled
		if err := tx.UpdateCollab(ctx, updated); err != nil {
			return nil, err
		}
		a := collabActivity(c, activity.ActionStatus)
		if enabled {
			a.Message = c.Name() + " enabled."
		} else {
			a.Message = activity.SensitiveMarker + ": " + c.Name() + " disabled."
			a.SensitiveActionName = "Collab disabled"
		}
		a.OldValue = activity.Value(map[string]string{KeyIsEnabled: c.Settings.value(KeyIsEnabled)})
		a.NewValue = activity.Value(map[string]string{KeyIsEnabled: updated.Settings.value(KeyIsEnabled)})
		a.Count = 1
		return &a, nil
	})
}

// UpdateLimits changes a collab's limits and returns the collab afterwards.
// Negative amounts, or a minimum above its maximum once the change is
// applied, are invalid; a collab outside the actor's scope is not found.
func (s *Service) UpdateLimits(ctx context.Context, actor activity.Actor, collabID int32, ch LimitsChange) (Collab, error) {
	if collabID <= 0 {
		return Collab{}, apperr.Invalid("Give the collabId of the collaboration to change.")
	}
	return s.changeCollab(ctx, actor, collabID, msgCollabNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		next, err := c.Limits.Apply(ch)
		if err != nil {
			return nil, err
		}
		if next == c.Limits {
			return nil, nil
		}
		updated := c
		updated.Limits = next
		if err := tx.UpdateCollab(ctx, updated); err != nil {
			return nil, err
		}
		a := limitsActivity(collabActivity(c, activity.ActionLimits), "Limits of "+c.Name(), c.Limits, next)
		return &a, nil
	})
}

// UpdatePayTypeLimits changes the limits of one pay type of a collab and
// returns the collab afterwards. The rules are UpdateLimits'.
func (s *Service) UpdatePayTypeLimits(ctx context.Context, actor activity.Actor, collabPayTypeID int32, ch LimitsChange) (Collab, error) {
	if collabPayTypeID <= 0 {
		return Collab{}, apperr.Invalid("Give the collabPayTypeId of the pay type to change.")
	}
	lookup := func(ctx context.Context, tx Tx) (int32, error) {
		id, err := tx.CollabIDOfPayType(ctx, collabPayTypeID)
		return id, notFoundAs(err, msgCollabPayTypeNotFound)
	}
	return s.changeCollabBy(ctx, actor, lookup, msgCollabPayTypeNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		// The lookup ran before the lock: the pay type may have gone since.
		i := slices.IndexFunc(c.PayTypes, func(pt CollabPayType) bool { return pt.ID == collabPayTypeID })
		if i < 0 {
			return nil, apperr.NotFound(msgCollabPayTypeNotFound)
		}
		pt := c.PayTypes[i]
		next, err := pt.Limits.Apply(ch)
		if err != nil {
			return nil, err
		}
		if next == pt.Limits {
			return nil, nil
		}
		updated := pt
		updated.Limits = next
		if err := tx.UpdateCollabPayType(ctx, updated); err != nil {
			return nil, err
		}
		a := collabActivity(c, activity.ActionLimits)
		setPayType(&a, pt.PayType)
		a = limitsActivity(a, "Limits of "+pt.Label()+" on "+c.Name(), pt.Limits, next)
		return &a, nil
	})
}

// limitsActivity fills a limits entry: the message, values and channel.
func limitsActivity(a activity.Entry, subject string, before, after Limits) activity.Entry {
	old, neu, names := before.diff(after)
	var changes []string
	channels := map[string]bool{}
	for _, n := range names {
		changes = append(changes, fmt.Sprintf("%s %s → %s", n, show(old[n]), show(neu[n])))
		if strings.Contains(n, "Deposit") {
			channels[activity.ChannelCashIn] = true
		} else {
			channels[activity.ChannelCashOut] = true
		}
	}
	if len(channels) == 1 {
		for ch := range channels {
			a.Channel = ch
		}
	}
	a.Message = fmt.Sprintf("%s changed: %s.", subject, strings.Join(changes, ", "))
	a.OldValue, a.NewValue = activity.Value(old), activity.Value(neu)
	a.Count = int32(len(names))
	return a
}

// NewCollab is what Initialize needs to create a collab.
type NewCollab struct {
	// ProviderID is the provider's id.
	ProviderID int32
	// MerchantID is the merchant's id.
	MerchantID int32
	// PayTypeIDs are the provider's pay types to put on the collab.
	PayTypeIDs []int32
	// PayTypeSettings set the switches of selected pay types.
	PayTypeSettings []PayTypeChannels
	// Settings are settings by key; the others take their defaults.
	Settings map[string]string
}

// Initialize creates the collab of a merchant with a provider and returns
// it. Settings left out take DefaultSettings, except that a direction the
// provider lacks starts off; pay type switches left out follow what the pay
// type supports. A merchant outside the actor's scope, or an unknown merchant
// or provider, is not found; a second collab of the same merchant and
// provider is a conflict; a pay type the provider does not offer, or a
// direction it lacks, is invalid.
func (s *Service) Initialize(ctx context.Context, actor activity.Actor, nc NewCollab) (Collab, error) {
	if nc.ProviderID <= 0 || nc.MerchantID <= 0 {
		return Collab{}, apperr.Invalid("Choose both a merchant and a provider.")
	}
	if !actor.Scope.Includes(nc.MerchantID) {
		return Collab{}, apperr.NotFound(msgMerchantNotFound)
	}
	var out Collab
	err := s.store.Tx(ctx, func(tx Tx) error {
		m, err := tx.Merchant(ctx, nc.MerchantID)
		if err != nil {
			return notFoundAs(err, msgMerchantNotFound)
		}
		p, err := tx.Provider(ctx, nc.ProviderID)
		if err != nil {
			return notFoundAs(err, msgProviderNotFound)
		}
		ref := ProviderRef{ID: p.ID, Name: p.Name, IsEnabled: p.IsEnabled, SupportsCashIn: p.SupportsCashIn, SupportsCashOut: p.SupportsCashOut}

		start := DefaultSettings()
		start.IsCashInEnabled, start.IsCashOutEnabled = p.SupportsCashIn, p.SupportsCashOut
		settings, _, err := start.Apply(nc.Settings)
		if err != nil {
			return err
		}
		if err := checkDirections(ref, start, settings); err != nil {
			return err
		}

		c := Collab{Merchant: m, Provider: ref, Settings: settings}
		for _, id := range nc.PayTypeIDs {
			if _, dup := c.payType(id); dup {
				continue
			}
			ppt, ok := p.PayType(id)
			if !ok {
				return apperr.Invalid("%s does not offer pay type %d.", p.Name, id)
			}
			c.PayTypes = append(c.PayTypes, CollabPayType{ProviderPayType: ppt})
		}
		initial := make([]CollabPayType, len(c.PayTypes))
		for i, pt := range c.PayTypes {
			// Start from "off" so that explicit switches are checked against
			// what the pay type supports; then default the rest to it.
			initial[i] = pt
			c.PayTypes[i].IsCashInEnabled = pt.CashIn && p.SupportsCashIn
			c.PayTypes[i].IsCashOutEnabled = pt.CashOut && p.SupportsCashOut
		}
		seen := map[int32]bool{}
		for _, ch := range nc.PayTypeSettings {
			i, ok := c.payType(ch.PayTypeID)
			if !ok {
				return apperr.Invalid("Pay type settings name pay type %d, which is not among the selected pay types.", ch.PayTypeID)
			}
			if seen[ch.PayTypeID] {
				return apperr.Invalid("Pay type %d is listed twice in the pay type settings.", ch.PayTypeID)
			}
			seen[ch.PayTypeID] = true
			pt := c.PayTypes[i]
			if ch.IsCashInEnabled != nil {
				pt.IsCashInEnabled = *ch.IsCashInEnabled
			}
			if ch.IsCashOutEnabled != nil {
				pt.IsCashOutEnabled = *ch.IsCashOutEnabled
			}
			if err := checkPayTypeDirections(ref, initial[i], pt); err != nil {
				return err
			}
			c.PayTypes[i] = pt
		}

		id, err := tx.InsertCollab(ctx, c)
		if apperr.KindOf(err) == apperr.KindConflict {
			return apperr.New(apperr.KindConflict, err, "%s already has a collaboration with %s.", m.Name, p.Name)
		}
		if err != nil {
			return err
		}
		c.ID = id
		if len(c.PayTypes) > 0 {
			if err := tx.InsertCollabPayTypes(ctx, c.ID, p.ID, c.PayTypes); err != nil {
				return err
			}
		}

		a := collabActivity(c, activity.ActionConfiguration)
		labels := payTypeLabels(c.PayTypes)
		if len(labels) == 0 {
			a.Message = fmt.Sprintf("Collaboration %s created without pay types.", c.Name())
		} else {
			a.Message = fmt.Sprintf("Collaboration %s created with pay types %s.", c.Name(), strings.Join(labels, ", "))
		}
		if len(c.PayTypes) == 1 {
			setPayType(&a, c.PayTypes[0].PayType)
		}
		a.NewValue = activity.Value(map[string]any{"Settings": c.Settings.Map(), "PayTypes": payTypeValues(c.PayTypes)})
		a.Count = 1
		if err := s.record(ctx, tx, actor, a); err != nil {
			return err
		}
		out, err = tx.CollabForUpdate(ctx, c.ID)
		return err
	})
	if err != nil {
		return Collab{}, err
	}
	return out, nil
}

// NewPayType is a pay type to add to a collab.
type NewPayType struct {
	// PayTypeChannels are its id and switches (nil: what it supports).
	PayTypeChannels
	// Limits are its limits; nil amounts are none.
	Limits LimitsChange
}

// AddPayTypes adds pay types of the collab's provider to a collab and returns
// the collab afterwards. A pay type the provider does not offer, a direction
// it lacks, bad limits or an empty list are invalid; a pay type already on
// the collab is a conflict; a collab outside the actor's scope is not found.
func (s *Service) AddPayTypes(ctx context.Context, actor activity.Actor, collabID int32, add []NewPayType) (Collab, error) {
	if len(add) == 0 {
		return Collab{}, apperr.Invalid("Choose a pay type to add.")
	}
	return s.changeCollab(ctx, actor, collabID, msgCollabNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		p, err := tx.Provider(ctx, c.Provider.ID)
		if err != nil {
			return nil, err
		}
		var added []CollabPayType
		seen := map[int32]bool{}
		for _, n := range add {
			ppt, ok := p.PayType(n.PayTypeID)
			if !ok {
				return nil, apperr.Invalid("%s does not offer pay type %d.", p.Name, n.PayTypeID)
			}
			if seen[n.PayTypeID] {
				return nil, apperr.Invalid("%s is listed twice.", ppt.Label())
			}
			seen[n.PayTypeID] = true
			if _, on := c.payType(n.PayTypeID); on {
				return nil, apperr.Conflict("%s is already on this collaboration.", ppt.Label())
			}
			off := CollabPayType{ProviderPayType: ppt}
			pt := off
			pt.IsCashInEnabled = ppt.CashIn && c.Provider.SupportsCashIn
			pt.IsCashOutEnabled = ppt.CashOut && c.Provider.SupportsCashOut
			if n.IsCashInEnabled != nil {
				pt.IsCashInEnabled = *n.IsCashInEnabled
			}
			if n.IsCashOutEnabled != nil {
				pt.IsCashOutEnabled = *n.IsCashOutEnabled
			}
			if err := checkPayTypeDirections(c.Provider, off, pt); err != nil {
				return nil, err
			}
			if pt.Limits, err = (Limits{}).Apply(n.Limits); err != nil {
				return nil, err
			}
			added = append(added, pt)
		}
		if err := tx.InsertCollabPayTypes(ctx, c.ID, c.Provider.ID, added); err != nil {
			if apperr.KindOf(err) == apperr.KindConflict {
				return nil, apperr.New(apperr.KindConflict, err, "A pay type is already on this collaboration. Reload and try again.")
			}
			return nil, err
		}
		a := collabActivity(c, activity.ActionConfiguration)
		a.Message = fmt.Sprintf("Pay types added to %s: %s.", c.Name(), strings.Join(payTypeLabels(added), ", "))
		if len(added) == 1 {
			setPayType(&a, added[0].PayType)
		}
		a.NewValue = activity.Value(payTypeValues(added))
		a.Count = int32(len(added))
		return &a, nil
	})
}

// RemovePayTypes removes pay types from a collab and returns the collab
// afterwards. A pay type not on the collab or an empty list is invalid; a
// collab outside the actor's scope is not found.
func (s *Service) RemovePayTypes(ctx context.Context, actor activity.Actor, collabID int32, payTypeIDs []int32) (Collab, error) {
	if len(payTypeIDs) == 0 {
		return Collab{}, apperr.Invalid("Choose a pay type to remove.")
	}
	return s.changeCollab(ctx, actor, collabID, msgCollabNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		var removed []CollabPayType
		var ids []int32
		for _, id := range payTypeIDs {
			if slices.Contains(ids, id) {
				continue
			}
			i, ok := c.payType(id)
			if !ok {
				return nil, apperr.Invalid("Pay type %d is not on this collaboration.", id)
			}
			removed = append(removed, c.PayTypes[i])
			ids = append(ids, id)
		}
		if err := tx.DeleteCollabPayTypes(ctx, c.ID, ids); err != nil {
			return nil, err
		}
		a := collabActivity(c, activity.ActionConfiguration)
		a.Message = fmt.Sprintf("%s: pay types removed from %s: %s.", activity.SensitiveMarker, c.Name(), strings.Join(payTypeLabels(removed), ", "))
		a.SensitiveActionName = "Pay type removed"
		if len(removed) == 1 {
			setPayType(&a, removed[0].PayType)
		}
		a.OldValue = activity.Value(payTypeValues(removed))
		a.Count = int32(len(removed))
		return &a, nil
	})
}

// SetProviderEnabled enables or disables a provider for every merchant. An
// unknown provider is not found; setting the state it already has records
// nothing.
func (s *Service) SetProviderEnabled(ctx context.Context, actor activity.Actor, providerID int32, enabled bool) error {
	return s.store.Tx(ctx, func(tx Tx) error {
		p, err := tx.ProviderForUpdate(ctx, providerID)
		if err != nil {
			return notFoundAs(err, msgProviderNotFound)
		}
		if p.IsEnabled == enabled {
			return nil
		}
		if err := tx.SetProviderEnabled(ctx, p.ID, enabled); err != nil {
			return err
		}
		a := activity.Entry{ProviderID: p.ID, ProviderName: p.Name, ActionType: activity.ActionStatus, Count: 1}
		if enabled {
			a.Message = fmt.Sprintf("Provider %s enabled.", p.Name)
		} else {
			a.Message = fmt.Sprintf("%sprovider %s disabled: its collaborations take no payments until it is enabled again.", activity.CriticalPrefix, p.Name)
		}
		a.OldValue = activity.Value(map[string]bool{"IsEnabled": p.IsEnabled})
		a.NewValue = activity.Value(map[string]bool{"IsEnabled": enabled})
		return s.record(ctx, tx, actor, a)
	})
}

// SetMaintenance turns maintenance mode on or off and returns the new state.
// Turning it to the state it has records nothing; a change also publishes
// MaintenanceModeChanged.
func (s *Service) SetMaintenance(ctx context.Context, actor activity.Actor, enabled bool) (bool, error) {
	err := s.store.Tx(ctx, func(tx Tx) error {
		on, err := tx.MaintenanceForUpdate(ctx)
		if err != nil {
			return err
		}
		if on == enabled {
			return nil
		}
		at := s.stamp()
		if err := tx.SetMaintenance(ctx, enabled, actor.UserID, at); err != nil {
			return err
		}
		a := activity.Entry{ActionType: activity.ActionConfiguration, Count: 1}
		if enabled {
			a.Message = activity.CriticalPrefix + "maintenance mode enabled: new transactions will not be accepted regardless of provider status."
		} else {
			a.Message = activity.CriticalPrefix + "maintenance mode disabled: new transactions are accepted again."
		}
		a.OldValue = activity.Value(map[string]bool{"isMaintenanceModeEnabled": on})
		a.NewValue = activity.Value(map[string]bool{"isMaintenanceModeEnabled": enabled})
		if err := s.recordAt(ctx, tx, actor, a, at); err != nil {
			return err
		}
		return tx.Publish(ctx, &eventsv1.MaintenanceModeChanged{
			IsEnabled: enabled,
			UserId:    actor.UserID,
			Username:  actor.Username,
			ChangedAt: timestamppb.New(at),
		})
	})
	if err != nil {
		return false, err
	}
	return enabled, nil
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

// setPayType names pt in entry a.
func setPayType(a *activity.Entry, pt PayType) {
	a.PayTypeID, a.PayTypeName, a.PayTypeCode = pt.ID, pt.Name, pt.Code
}

func payTypeLabels(pts []CollabPayType) []string {
	out := make([]string, len(pts))
	for i, pt := range pts {
		out[i] = pt.Label()
	}
	return out
}

// payTypeValues describes pay types for an activity entry's values.
func payTypeValues(pts []CollabPayType) []map[string]any {
	out := make([]map[string]any, len(pts))
	for i, pt := range pts {
		v := map[string]any{
			"PayTypeId":        pt.PayType.ID,
			"Name":             pt.Name,
			"Code":             pt.Code,
			"IsCashInEnabled":  pt.IsCashInEnabled,
			"IsCashOutEnabled": pt.IsCashOutEnabled,
		}
		for _, f := range pt.Limits.fields() {
			if f.amount.IsSet() {
				v[f.name] = f.amount.String()
			}
		}
		out[i] = v
	}
	return out
}
