package collab

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

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
