package bus

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ConsumeOption changes how Consume handles messages.
type ConsumeOption func(*consumeOptions)

type consumeOptions struct {
	log        *slog.Logger
	minBackoff time.Duration
	maxBackoff time.Duration
	ackWait    time.Duration
	lagEvery   time.Duration
	start      Start
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

// WithStart sets where the durable consumer starts when it does not exist
// yet (every event kept in the stream by default); an existing one keeps its
// start.
func WithStart(start Start) ConsumeOption {
	return func(o *consumeOptions) { o.start = start }
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
	route := Route{Durable: durable, Subject: subject, AckWait: o.ackWait, FirstRetry: o.minBackoff, MaxRetry: o.maxBackoff,
		LagEvery: o.lagEvery, Start: o.start, Logger: o.log.With("subject", subject)}
	return Run(ctx, js, route, func(_ context.Context, batch []Delivery, _ *Settle) error {
		// One message a batch (Size 1): its error is the batch's.
		return handle(batch[0].Ctx, batch[0].Msg)
	})
}

// backoff returns first doubled for each earlier delivery, capped at limit.
func backoff(delivered uint64, first, limit time.Duration) time.Duration {
	d := first
	for i := uint64(1); i < delivered && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}
