// Package nats holds the gateway's consumers of events: the callbacks
// service's delivery tallies (kept on the transactions) and its callback-URL
// changes (written to the activity log), and the gateway's own export
// requests, which its export workers share as a work queue.
package nats

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"golang.org/x/sync/errgroup"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/bus"
)

// Durable consumer names, after the consumer group: the Postgres schema
// the consumers write to, so replicas sharing a schema share the work, and
// gateways on separate schemas (tests) each see every event.
func TallyConsumer(group string) string    { return group + "-callback-tally" }
func ActivityConsumer(group string) string { return group + "-callback-activity" }

// CallbackRecorder records callback-URL changes in the activity log.
type CallbackRecorder interface {
	RecordCallbackURLChange(ctx context.Context, ch collab.CallbackURLChange) error
}

// RunCallbackEvents consumes the callbacks service's events until ctx ends.
// Both handlers are idempotent: a tally is compare-and-set on its version,
// a callback-URL change is recorded once per change id.
func RunCallbackEvents(ctx context.Context, js jetstream.JetStream, group string, from bus.Start, tallies payment.TallyStore, rec CallbackRecorder, log *slog.Logger) error {
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		return bus.Consume(gctx, js, TallyConsumer(group), bus.Subject(&eventsv1.CallbackDeliveryChanged{}),
			func(ctx context.Context, msg jetstream.Msg) error {
				var ev eventsv1.CallbackDeliveryChanged
				if err := bus.Decode(msg, &ev); err != nil {
					return fmt.Errorf("%w: %w", bus.ErrPermanent, err)
				}
				_, err := tallies.SetCallbackTally(ctx, TallyOf(&ev))
				return err
			}, bus.WithLogger(log), bus.WithStart(from))
	})
	g.Go(func() error {
		return bus.Consume(gctx, js, ActivityConsumer(group), bus.Subject(&eventsv1.CallbackUrlChanged{}),
			func(ctx context.Context, msg jetstream.Msg) error {
				var ev eventsv1.CallbackUrlChanged
				if err := bus.Decode(msg, &ev); err != nil {
					return fmt.Errorf("%w: %w", bus.ErrPermanent, err)
				}
				return rec.RecordCallbackURLChange(ctx, ChangeOf(&ev))
			}, bus.WithLogger(log), bus.WithStart(from))
	})
	return g.Wait()
}

// TallyOf maps a CallbackDeliveryChanged event to the tally it carries.
func TallyOf(ev *eventsv1.CallbackDeliveryChanged) payment.CallbackTally {
	return payment.CallbackTally{TransactionID: ev.GetTransactionId(), Delivered: ev.GetDelivered(),
		Total: ev.GetTotal(), Version: ev.GetVersion()}
}

// ChangeOf maps a CallbackUrlChanged event to the change it announces.
func ChangeOf(ev *eventsv1.CallbackUrlChanged) collab.CallbackURLChange {
	var at time.Time
	if ev.GetChangedAt() != nil {
		at = ev.GetChangedAt().AsTime()
	}
	return collab.CallbackURLChange{
		ChangeID: ev.GetChangeId(), Action: ev.GetAction(), CallbackID: ev.GetCallbackId(), CollabID: ev.GetCollabId(),
		Actor:    activity.Actor{UserID: ev.GetUserId(), Username: ev.GetUsername(), IP: ev.GetIp(), UserAgent: ev.GetUserAgent()},
		OldValue: ev.GetOldValue(), NewValue: ev.GetNewValue(), At: at,
	}
}
