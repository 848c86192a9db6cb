package maintenance_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/internal/apperr"
)

// fakeStore is the switch in memory, with what its transactions wrote.
type fakeStore struct {
	on        bool
	entries   []activity.Entry
	published []proto.Message
}

func (f *fakeStore) MaintenanceEnabled(context.Context) (bool, error) { return f.on, nil }
func (f *fakeStore) Tx(_ context.Context, fn func(maintenance.Tx) error) error {
	return fn(f)
}
func (f *fakeStore) MaintenanceForUpdate(context.Context) (bool, error) { return f.on, nil }
func (f *fakeStore) SetMaintenance(_ context.Context, enabled bool, _ int64, _ time.Time) error {
	f.on = enabled
	return nil
}
func (f *fakeStore) InsertActivity(_ context.Context, a activity.Entry) (int64, error) {
	f.entries = append(f.entries, a)
	return int64(len(f.entries)), nil
}
func (f *fakeStore) Publish(_ context.Context, m proto.Message) error {
	f.published = append(f.published, m)
	return nil
}

func TestSwitch(t *testing.T) {
	t.Parallel()
	store := &fakeStore{}
	svc := maintenance.NewService(store, func() time.Time { return time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC) })
	ctx := context.Background()
	if err := svc.CheckAcceptingTransactions(ctx); err != nil {
		t.Fatalf("accepting while off: %v", err)
	}
	actor := activity.Actor{UserID: 7, Username: "admin"}
	if on, err := svc.Set(ctx, actor, true); err != nil || !on {
		t.Fatalf("Set(true) = %v, %v", on, err)
	}
	err := svc.CheckAcceptingTransactions(ctx)
	if e := apperr.As(err); e == nil || e.Kind != apperr.KindFailedPrecondition {
		t.Fatalf("accepting while on: %v, want failed precondition", err)
	}
	// The same state again records nothing.
	if _, err := svc.Set(ctx, actor, true); err != nil {
		t.Fatal(err)
	}
	// One change: its activity entry (with its ActivityRecorded event) and
	// MaintenanceModeChanged.
	var changes []*eventsv1.MaintenanceModeChanged
	for _, m := range store.published {
		if ev, ok := m.(*eventsv1.MaintenanceModeChanged); ok {
			changes = append(changes, ev)
		}
	}
	if len(store.entries) != 1 || len(changes) != 1 {
		t.Fatalf("%d entries and %d MaintenanceModeChanged after one change", len(store.entries), len(changes))
	}
	if ev := changes[0]; !ev.GetIsEnabled() || ev.GetUsername() != "admin" {
		t.Fatalf("event %v", ev)
	}
	if e := store.entries[0]; e.ActionType != activity.ActionConfiguration || e.Username != "admin" {
		t.Fatalf("entry %+v", e)
	}
	if _, err := svc.Set(ctx, actor, false); err != nil || store.on {
		t.Fatalf("Set(false): %v, on %v", err, store.on)
	}
	if err := svc.CheckAcceptingTransactions(ctx); err != nil {
		t.Fatalf("not accepting after the switch went off: %v", err)
	}
}
