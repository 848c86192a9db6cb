// Package maintenance holds the gateway's maintenance switch: while it is on,
// new transactions are not accepted, whatever the providers' state (spec 01
// §4 "Maintenance mode"). Turning it on or off is recorded in the activity
// log and published as MaintenanceModeChanged.
package maintenance

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Store reads and changes the switch.
type Store interface {
	// MaintenanceEnabled reports whether maintenance mode is on.
	MaintenanceEnabled(ctx context.Context) (bool, error)
	// Tx runs fn in one database transaction, committed when fn returns
	// nil. fn's error is returned as it is.
	Tx(ctx context.Context, fn func(Tx) error) error
}

// Tx is what a change of the switch does inside Store.Tx.
type Tx interface {
	// MaintenanceForUpdate returns the switch, locking it until the
	// transaction ends.
	MaintenanceForUpdate(ctx context.Context) (bool, error)
	// SetMaintenance stores the switch and who changed it when.
	SetMaintenance(ctx context.Context, enabled bool, by int64, at time.Time) error
	// InsertActivity stores an activity log entry and returns its id.
	InsertActivity(ctx context.Context, a activity.Entry) (int64, error)
	// Publish queues an event to leave with this transaction (outbox).
	Publish(ctx context.Context, event proto.Message) error
}

// Service reads and turns the switch.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns the service on store with now the clock.
func NewService(store Store, now func() time.Time) *Service {
	return &Service{store: store, now: now}
}

// Enabled reports whether maintenance mode is on.
func (s *Service) Enabled(ctx context.Context) (bool, error) {
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
	on, err := s.Enabled(ctx)
	if err != nil {
		return err
	}
	if on {
		return apperr.FailedPrecondition("The gateway is in maintenance mode and accepts no new transactions. Please try again later.")
	}
	return nil
}

// Set turns maintenance mode on or off and returns the new state. Turning it
// to the state it has records nothing; a change also publishes
// MaintenanceModeChanged.
func (s *Service) Set(ctx context.Context, actor activity.Actor, enabled bool) (bool, error) {
	err := s.store.Tx(ctx, func(tx Tx) error {
		on, err := tx.MaintenanceForUpdate(ctx)
		if err != nil {
			return err
		}
		if on == enabled {
			return nil
		}
		at := s.now().UTC().Truncate(time.Microsecond)
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
		if err := activity.Record(ctx, tx, actor, a, at); err != nil {
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
