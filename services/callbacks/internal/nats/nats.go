// Package nats feeds the gateway's transaction events to the callbacks
// service: a durable JetStream consumer on transaction_finalized and one on
// transaction_updated (one subject each: NATS servers before 2.10 know no
// lists of filter subjects), each read in batches so that a burst of events
// costs one Postgres transaction per batch, not per event. The two streams
// of events may interleave either way; the store orders a transaction's
// states by their own updated time.
package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/bus"
)

// Consumers returns the durable consumer names of a consumer group: the
// Postgres schema the events are applied to, so replicas sharing a schema
// share the work and services on separate schemas (tests) each see every
// event. The first reads finalized events, the second updated ones.
func Consumers(group string) []string {
	return []string{group + "-callbacks-finalized", group + "-callbacks-updated"}
}

var (
	finalizedSubject = bus.Subject(&eventsv1.TransactionFinalized{})
	updatedSubject   = bus.Subject(&eventsv1.TransactionUpdated{})
)

// errSkip marks an event of a subject the service does not use.
var errSkip = errors.New("not a finalized or updated event")

// Handler applies a batch of events (callback.Service.HandleTransactionEvents):
// when it returns nil it calls settle once per event id of the batch, maybe
// later and from another goroutine, and the event's messages are then
// acknowledged (nil) or handed back to come again (an error); when it
// returns an error every message of the batch comes again.
type Handler func(ctx context.Context, events []callback.TransactionEvent, settle func(eventID string, err error)) error

// Options tune Run; zero values take the defaults.
type Options struct {
	// BatchSize is the most events applied in one call (256).
	BatchSize int
	// AckWait is how long the server waits for an ack before redelivering
	// (1 min); a batch must be applied within it.
	AckWait time.Duration
	// RetryDelay is the first redelivery delay of a batch that failed (1 s),
	// doubling with each delivery up to 1 min.
	RetryDelay time.Duration
	// From is where a consumer that does not exist yet starts: every event
	// the stream holds (the zero value), only new ones (FromNew), or those
	// since a time (FromTime). An existing consumer goes on where it was.
	From bus.Start
	// Logger receives failures.
	Logger *slog.Logger
}

// Run applies the transaction events with handle, in batches, until ctx
// ends. A batch that handle applied is acked; one it failed is nacked with
// a delay and comes back; a message that does not decode is terminated.
// handle must be idempotent: an event may come more than once.
func Run(ctx context.Context, js jetstream.JetStream, group string, handle Handler, o Options) error {
	if o.BatchSize <= 0 {
		o.BatchSize = 256
	}
	if o.AckWait <= 0 {
		o.AckWait = time.Minute
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	names := Consumers(group)
	g, gctx := errgroup.WithContext(ctx)
	for i, subject := range []string{finalizedSubject, updatedSubject} {
		g.Go(func() error { return consume(gctx, js, names[i], subject, handle, o) })
	}
	return g.Wait()
}

func consume(ctx context.Context, js jetstream.JetStream, durable, subject string, handle Handler, o Options) error {
	r := bus.Route{Durable: durable, Subject: subject, Start: o.From, AckWait: o.AckWait, Size: o.BatchSize,
		// A few milliseconds of waiting for more make far fewer, larger
		// database transactions under load.
		Linger: 5 * time.Millisecond, MaxAckPending: 8 * o.BatchSize, FirstRetry: o.RetryDelay, Logger: o.Logger}
	return bus.Run(ctx, js, r, func(ctx context.Context, batch []bus.Delivery, settle *bus.Settle) error {
		events := make([]callback.TransactionEvent, 0, len(batch))
		byID := make(map[string][]jetstream.Msg, len(batch))
		for _, d := range batch {
			ev, err := Decode(d.Msg)
			if errors.Is(err, errSkip) {
				settle.Done(d.Msg)
				continue
			}
			if err != nil {
				settle.Drop(d.Msg, fmt.Errorf("transaction event does not decode: %w", err))
				continue
			}
			// The deliveries the event makes are traced as children of
			// its consumer span, in the trace of the request that wrote it.
			if ev.Trace.IsValid() {
				ev.Trace = trace.SpanContextFromContext(d.Ctx)
			}
			events = append(events, ev)
			byID[ev.EventID] = append(byID[ev.EventID], d.Msg)
		}
		if len(events) == 0 {
			return nil
		}
		// The service settles each event when its deliveries are done,
		// maybe after it returns.
		for _, msgs := range byID {
			for _, m := range msgs {
				settle.Later(m)
			}
		}
		err := handle(ctx, events, func(eventID string, err error) {
			for _, m := range byID[eventID] {
				switch {
				case err == nil:
					settle.Done(m)
				case errors.Is(err, callback.ErrStopped):
					settle.Retry(m, fmt.Errorf("%w: %w", bus.ErrStopping, err))
				default:
					settle.Retry(m, err)
				}
			}
		})
		if err != nil {
			// Every message of the batch comes again.
			for _, msgs := range byID {
				for _, m := range msgs {
					settle.Retry(m, err)
				}
			}
		}
		return err
	})
}

// Decode maps a TransactionFinalized or TransactionUpdated message to a
// domain event whose id is the message's Nats-Msg-Id (the gateway's outbox
// id), or its stream sequence when it has none, in the trace of the request
// that wrote it (its traceparent header). Other subjects give an error
// wrapping errSkip.
func Decode(m jetstream.Msg) (callback.TransactionEvent, error) {
	id := m.Headers().Get(jetstream.MsgIDHeader)
	if id == "" {
		md, err := m.Metadata()
		if err != nil {
			return callback.TransactionEvent{}, fmt.Errorf("event without id or metadata: %w", err)
		}
		id = "seq:" + strconv.FormatUint(md.Sequence.Stream, 10)
	}
	var (
		state    *eventsv1.TransactionState
		previous int32
		final    bool
		off      bool
	)
	switch m.Subject() {
	case finalizedSubject:
		var ev eventsv1.TransactionFinalized
		if err := proto.Unmarshal(m.Data(), &ev); err != nil {
			return callback.TransactionEvent{}, err
		}
		state, previous, final, off = ev.GetTransaction(), ev.GetPreviousStatus(), true, ev.GetMerchantCallbacksOff()
	case updatedSubject:
		var ev eventsv1.TransactionUpdated
		if err := proto.Unmarshal(m.Data(), &ev); err != nil {
			return callback.TransactionEvent{}, err
		}
		state, previous = ev.GetTransaction(), ev.GetPreviousStatus()
	default:
		return callback.TransactionEvent{}, fmt.Errorf("%w: %s", errSkip, m.Subject())
	}
	if state == nil || state.GetTransactionId() == 0 {
		return callback.TransactionEvent{}, errors.New("event without a transaction")
	}
	return callback.TransactionEvent{EventID: id, Finalized: final, PreviousStatus: previous, State: StateOf(state),
		MerchantCallbacksOff: off, Trace: trace.SpanContextFromContext(bus.ContextFrom(context.Background(), m))}, nil
}

// StateOf maps an event's TransactionState to the domain's.
func StateOf(s *eventsv1.TransactionState) callback.TransactionState {
	st := callback.TransactionState{
		ID: s.GetTransactionId(), ReferenceID: s.GetReferenceId(), MerchantID: s.GetMerchantId(),
		CollabID: s.GetCollabId(), Nonce: s.GetNonce(), Type: s.GetTransactionType(),
		Amount: s.GetAmount(), Currency: s.GetCurrency(), Status: s.GetStatus(),
		StatusMessage: s.GetStatusMessage(), ProviderTransactionID: s.GetProviderTransactionId(),
		CallbacksCanceled: s.GetCallbackSendingCanceled(), MerchantClientID: s.GetMerchantClientId(),
		DestinationAmount: s.GetDestinationAmount(), DestinationCurrency: s.GetDestinationCurrency(),
		ErrorMessage: s.GetErrorMessage(),
	}
	if s.GetUpdatedAt() != nil {
		st.UpdatedAt = s.GetUpdatedAt().AsTime()
	}
	if s.GetCreatedAt() != nil {
		st.CreatedAt = s.GetCreatedAt().AsTime()
	}
	return st
}
