package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/codes"
)

// ConsumeOption changes how Consume handles messages.
type ConsumeOption func(*consumeOptions)

type consumeOptions struct {
	log        *slog.Logger
	minBackoff time.Duration
	maxBackoff time.Duration
	ackWait    time.Duration
	lagEvery   time.Duration
}

// WithLogger sets the logger of handler failures (slog.Default otherwise).
func WithLogger(log *slog.Logger) ConsumeOption {
	return func(o *consumeOptions) { o.log = log }
}

// WithBackoff sets the redelivery delay after the first failure and its cap;
// the delay doubles with each delivery. The defaults are 1 s and 1 min.
func WithBackoff(first, limit time.Duration) ConsumeOption {
	return func(o *consumeOptions) { o.minBackoff, o.maxBackoff = first, limit }
}

// WithAckWait sets how long a delivered message may go unacknowledged before
// the server redelivers it (30 s by default); handlers must finish within it.
func WithAckWait(d time.Duration) ConsumeOption {
	return func(o *consumeOptions) { o.ackWait = d }
}

// WithLagInterval sets how often the consumer's lag gauges are sampled
// (LagSampleInterval by default).
func WithLagInterval(d time.Duration) ConsumeOption {
	return func(o *consumeOptions) { o.lagEvery = d }
}

// Consume delivers the events on subject (wildcards allowed) to handle
// through the durable consumer named durable, creating or updating it, until
// ctx ends; it then stops and returns nil. A nil error from handle acks the
// message; an error wrapping ErrPermanent terminates it (it is logged and
// never redelivered); any other error naks it with an exponential delay, so
// the event comes back later. Handlers run one at a time and must be
// idempotent: an event may be delivered more than once. handle's ctx
// continues the trace of the request that wrote the event, in a consumer
// span (StartConsumeSpan). The consumer's lag
// is sampled into paygate_consumer_pending_messages meanwhile (SampleLag).
func Consume(ctx context.Context, js jetstream.JetStream, durable, subject string, handle func(ctx context.Context, msg jetstream.Msg) error, opts ...ConsumeOption) error {
	o := consumeOptions{log: slog.Default(), minBackoff: time.Second, maxBackoff: time.Minute, ackWait: 30 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	log := o.log.With("consumer", durable, "subject", subject)

	cons, err := js.CreateOrUpdateConsumer(ctx, StreamName, jetstream.ConsumerConfig{
		Durable:       durable,
		FilterSubject: subject,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.ackWait,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver:    -1,
		MaxAckPending: 1000,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("consumer %s on %s: %w", durable, subject, err)
	}

	stopLag := StartLagSampler(ctx, cons, durable, o.lagEvery)
	defer stopLag()
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		handleOne(ctx, log, o, durable, msg, handle)
	}, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if ctx.Err() == nil {
			log.WarnContext(ctx, "consume", "error", err)
		}
	}))
	if err != nil {
		return fmt.Errorf("consume %s on %s: %w", durable, subject, err)
	}
	<-ctx.Done()
	cc.Stop()
	select {
	case <-cc.Closed():
	case <-time.After(10 * time.Second):
		log.Warn("consumer did not stop within 10s")
	}
	return nil
}

func handleOne(ctx context.Context, log *slog.Logger, o consumeOptions, durable string, msg jetstream.Msg, handle func(context.Context, jetstream.Msg) error) {
	// The handler continues the trace of the request that wrote the event.
	hctx, span := StartConsumeSpan(ctx, msg, durable)
	err := handle(hctx, msg)
	if err != nil {
		span.SetStatus(codes.Error, "event not handled")
	}
	span.End()
	if err == nil {
		if err := msg.Ack(); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "ack event", "error", err)
		}
		return
	}
	if errors.Is(err, ErrPermanent) {
		log.ErrorContext(ctx, "event dropped after a permanent failure", "error", err)
		if err := msg.Term(); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "terminate event", "error", err)
		}
		return
	}
	var delivered uint64 = 1
	if md, mdErr := msg.Metadata(); mdErr == nil {
		delivered = md.NumDelivered
	}
	delay := backoff(delivered, o.minBackoff, o.maxBackoff)
	if ctx.Err() == nil {
		log.WarnContext(ctx, "event handler failed; will retry", "error", err, "delivered", delivered, "retry_in", delay)
	}
	if err := msg.NakWithDelay(delay); err != nil && ctx.Err() == nil {
		log.WarnContext(ctx, "nak event", "error", err)
	}
}

// backoff returns first doubled for each earlier delivery, capped at limit.
func backoff(delivered uint64, first, limit time.Duration) time.Duration {
	d := first
	for i := uint64(1); i < delivered && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
