package collab

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/services/gateway/internal/activity"
)

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
