package collab

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

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
