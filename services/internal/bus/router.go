package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Start is where a durable consumer that does not exist yet starts: every
// event the stream holds (the zero Start), only new ones, or those since a
// time. A consumer that exists keeps the start it was made with.
type Start struct {
	// New starts at the events published after the consumer is made.
	New bool
	// Time starts at the events published since it.
	Time time.Time
}

// Route is one durable consumer of the events stream and how its messages
// reach their handler: one at a time (Size 1) or in batches.
type Route struct {
	// Durable names the consumer; Subject filters it (wildcards allowed).
	Durable, Subject string
	// Start is where a new consumer starts.
	Start Start
	// AckWait is how long a delivered message may go unsettled before the
	// server delivers it again (30 s by default); handlers finish within it.
	AckWait time.Duration
	// Size is the most messages a batch holds (1 by default: one at a
	// time); Linger is how long a batch waits to fill once its first
	// message came (nothing by default).
	Size   int
	Linger time.Duration
	// MaxAckPending is how many messages may be out unsettled (1000, or 8
	// batches when that is more, by default).
	MaxAckPending int
	// FirstRetry and MaxRetry bound the redelivery delay of a message to
	// retry, which doubles with each delivery (1 s and 1 min by default).
	FirstRetry, MaxRetry time.Duration
	// LagEvery is how often the consumer's lag is sampled into
	// paygate_consumer_pending_messages (LagSampleInterval by default).
	LagEvery time.Duration
	// Logger logs what fails (slog.Default by default).
	Logger *slog.Logger
}

func (r *Route) defaults() {
	if r.AckWait <= 0 {
		r.AckWait = 30 * time.Second
	}
	if r.Size <= 0 {
		r.Size = 1
	}
	if r.MaxAckPending <= 0 {
		r.MaxAckPending = max(1000, 8*r.Size)
	}
	if r.FirstRetry <= 0 {
		r.FirstRetry = time.Second
	}
	if r.MaxRetry <= 0 {
		r.MaxRetry = time.Minute
	}
	if r.Logger == nil {
		r.Logger = slog.Default()
	}
}

// Delivery is one message of a batch, with the context its handling runs
// in: a consumer span in the trace of the request that wrote the event
// (StartConsumeSpan).
type Delivery struct {
	Msg jetstream.Msg
	Ctx context.Context
}

// Settle settles the messages of a batch one by one, at once or later
// (from any goroutine): Done acks, Retry hands back to come again after a
// delay, Drop terminates (the message can never be handled: it does not
// decode, say). The first settlement of a message counts.
type Settle struct {
	ctx   context.Context
	log   *slog.Logger
	route Route

	mu    sync.Mutex
	spans map[jetstream.Msg]trace.Span
	held  map[jetstream.Msg]bool
}

// Done acks m.
func (s *Settle) Done(m jetstream.Msg) { s.settle(m, outcomeDone, nil, false) }

// Retry hands m back, for err, to come again after a delay.
func (s *Settle) Retry(m jetstream.Msg, err error) { s.settle(m, outcomeRetry, err, false) }

// Drop terminates m, for err: it is logged and never delivered again.
func (s *Settle) Drop(m jetstream.Msg, err error) { s.settle(m, outcomeDrop, err, false) }

// Later keeps m unsettled when the handler returns: the handler settles it
// later (once what it started for it is done), within AckWait.
func (s *Settle) Later(m jetstream.Msg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, open := s.spans[m]; open {
		s.held[m] = true
	}
}

type outcome int

const (
	outcomeDone outcome = iota
	outcomeRetry
	outcomeDrop
)

// settle applies o to m once; quiet leaves a retry unlogged (the batch logs
// it once).
func (s *Settle) settle(m jetstream.Msg, o outcome, cause error, quiet bool) {
	s.mu.Lock()
	span, open := s.spans[m]
	delete(s.spans, m)
	delete(s.held, m)
	s.mu.Unlock()
	if !open {
		return
	}
	ctx, log := s.ctx, s.log
	switch o {
	case outcomeDone:
		if err := m.Ack(); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "ack event", "subject", m.Subject(), "error", err)
		}
	case outcomeDrop:
		span.SetStatus(codes.Error, "event dropped")
		log.ErrorContext(ctx, "event dropped: it can never be handled", "subject", m.Subject(), "error", cause)
		if err := m.Term(); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "terminate event", "error", err)
		}
	default:
		span.SetStatus(codes.Error, "event not handled")
		if !quiet && ctx.Err() == nil && !errors.Is(cause, ErrStopping) {
			log.WarnContext(ctx, "event not handled; it comes back", "subject", m.Subject(), "error", cause)
		}
		var err error
		if ctx.Err() != nil {
			// The run is stopping (a job's lease ended, say), not the
			// message failing: it comes back at once, to the next run or
			// another replica. (A handler's ErrStopping while the run goes
			// on keeps the delay, so that this run does not take it back
			// at once.)
			err = m.Nak()
		} else {
			err = m.NakWithDelay(retryDelay(m, s.route.FirstRetry, s.route.MaxRetry))
		}
		if err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "nak event", "error", err)
		}
	}
	span.End()
}

// ErrStopping marks a failure that only says the process is stopping: the
// message comes back without a warning.
var ErrStopping = errors.New("stopping")

// BatchHandler handles a batch of messages. It may settle each message
// (Settle), at once or later (Settle.Later); a message it leaves unsettled is
// acked when it returns nil, and handed back when it returns an error (an
// error wrapping ErrPermanent drops it instead). Handlers must be
// idempotent: a message may come more than once.
type BatchHandler func(ctx context.Context, batch []Delivery, settle *Settle) error

// Run delivers route's messages to handle until ctx ends, then stops the
// consumer, hands back the messages it holds but did not handle (so that
// another run or replica gets them at once, not after AckWait) and returns
// nil. It is the one consumer loop of every service: it makes or updates the
// durable consumer, batches, traces each message, settles (ack, retry with
// a doubling delay, or drop) and samples the consumer's lag.
func Run(ctx context.Context, js jetstream.JetStream, route Route, handle BatchHandler) error {
	route.defaults()
	log := route.Logger.With("consumer", route.Durable)
	cons, err := ensureConsumer(ctx, js, route)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer StartLagSampler(ctx, cons, route.Durable, route.LagEvery)()

	msgs := make(chan jetstream.Msg, 2*route.Size)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
			// Stopping: hand it back for the next run (or replica) at once.
			_ = m.Nak()
		}
	}, jetstream.PullMaxMessages(2*route.Size), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if ctx.Err() == nil {
			log.WarnContext(ctx, "consume", "subject", route.Subject, "error", err)
		}
	}))
	if err != nil {
		return fmt.Errorf("consume %s on %s: %w", route.Durable, route.Subject, err)
	}
	defer stopAndHandBack(cc, msgs, log)
	for {
		var first jetstream.Msg
		select {
		case <-ctx.Done():
			return nil
		case first = <-msgs:
		}
		batch := []jetstream.Msg{first}
		if route.Size > 1 {
			batch = fill(ctx, batch, msgs, route.Size, route.Linger)
		}
		handleBatch(ctx, log, route, batch, handle)
	}
}

// ensureConsumer makes or updates route's durable consumer; one that exists
// keeps its start.
func ensureConsumer(ctx context.Context, js jetstream.JetStream, route Route) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable:       route.Durable,
		FilterSubject: route.Subject,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       route.AckWait,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver:    -1,
		MaxAckPending: route.MaxAckPending,
	}
	switch {
	case route.Start.New:
		cfg.DeliverPolicy = jetstream.DeliverNewPolicy
	case !route.Start.Time.IsZero():
		start := route.Start.Time
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &start
	}
	// A consumer's start cannot change once made.
	if existing, err := js.Consumer(ctx, StreamName, route.Durable); err == nil {
		if info, err := existing.Info(ctx); err == nil {
			cfg.DeliverPolicy, cfg.OptStartTime = info.Config.DeliverPolicy, info.Config.OptStartTime
		}
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, StreamName, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer %s on %s: %w", route.Durable, route.Subject, err)
	}
	return cons, nil
}

// fill adds the messages that come within linger to batch, up to size.
func fill(ctx context.Context, batch []jetstream.Msg, msgs <-chan jetstream.Msg, size int, linger time.Duration) []jetstream.Msg {
	if linger <= 0 {
		for len(batch) < size {
			select {
			case m := <-msgs:
				batch = append(batch, m)
			default:
				return batch
			}
		}
		return batch
	}
	t := time.NewTimer(linger)
	defer t.Stop()
	for len(batch) < size {
		select {
		case m := <-msgs:
			batch = append(batch, m)
		case <-t.C:
			return batch
		case <-ctx.Done():
			return batch
		}
	}
	return batch
}

func handleBatch(ctx context.Context, log *slog.Logger, route Route, batch []jetstream.Msg, handle BatchHandler) {
	settle := &Settle{ctx: ctx, log: log, route: route,
		spans: make(map[jetstream.Msg]trace.Span, len(batch)), held: map[jetstream.Msg]bool{}}
	deliveries := make([]Delivery, len(batch))
	for i, m := range batch {
		hctx, span := StartConsumeSpan(ctx, m, route.Durable)
		settle.spans[m] = span
		deliveries[i] = Delivery{Msg: m, Ctx: hctx}
	}
	err := handle(ctx, deliveries, settle)
	settle.mu.Lock()
	var rest []jetstream.Msg
	for _, m := range batch {
		if _, open := settle.spans[m]; open && !settle.held[m] {
			rest = append(rest, m)
		}
	}
	settle.mu.Unlock()
	for _, m := range rest {
		switch {
		case err == nil:
			settle.Done(m)
		case errors.Is(err, ErrPermanent):
			settle.Drop(m, err)
		default:
			settle.settle(m, outcomeRetry, err, true)
		}
	}
	if err != nil && !errors.Is(err, ErrPermanent) && len(rest) > 0 && ctx.Err() == nil && !errors.Is(err, ErrStopping) {
		log.WarnContext(ctx, "events not handled; they come back", "subject", route.Subject, "events", len(rest), "error", err)
	}
}

// retryDelay is first doubled for each earlier delivery of m, capped at
// limit.
func retryDelay(m jetstream.Msg, first, limit time.Duration) time.Duration {
	var delivered uint64 = 1
	if md, err := m.Metadata(); err == nil {
		delivered = md.NumDelivered
	}
	return backoff(delivered, first, limit)
}

// stopAndHandBack stops the consumer and hands back the messages received
// but not handled, so that they come again at once rather than after
// AckWait. It drains rather than stops the client: a stop unsubscribes at
// once, and the messages the server had sent by then but the client had not
// handed on were dropped, each coming again only after AckWait (20 s for the
// aggregator, whose consumers stop at the end of every 30 s job lease);
// drained, the subscription lasts until the server has seen it end, and they
// reach the callback, which hands them back (ctx is done by then).
func stopAndHandBack(cc jetstream.ConsumeContext, msgs <-chan jetstream.Msg, log *slog.Logger) {
	cc.Drain()
	select {
	case <-cc.Closed():
	case <-time.After(10 * time.Second):
		log.Warn("consumer did not stop within 10s")
	}
	for {
		select {
		case m := <-msgs:
			_ = m.Nak()
		default:
			return
		}
	}
}

// ParseStart reads a consumer's start as configured: "all" (or empty),
// "new", or an RFC 3339 time.
func ParseStart(s string) (Start, error) {
	switch s {
	case "", "all":
		return Start{}, nil
	case "new":
		return Start{New: true}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return Start{}, fmt.Errorf("want all, new or an RFC 3339 time, got %q", s)
	}
	return Start{Time: t}, nil
}
