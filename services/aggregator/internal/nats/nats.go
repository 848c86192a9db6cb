// Package nats feeds the aggregator from the PAYGATE_EVENTS stream: the
// gateway's transaction events (read in batches so that a burst costs one
// Postgres transaction per batch), its currency rates, and every service's
// job run events. There is one durable consumer per subject (NATS servers
// before 2.10 know no lists of filter subjects), so events of different
// subjects may interleave either way: the statistics compare versions and
// the job stats compare times, so the order does not matter. It also keeps
// the jobs' on/off flags in the KV bucket paygate_jobs.
package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/aggregator/internal/jobstats"
	"github.com/paygate/paygate/services/aggregator/internal/statistics"
	"github.com/paygate/paygate/services/internal/bus"
)

// Subjects the aggregator reads.
var (
	createdSubject   = bus.Subject(&eventsv1.TransactionCreated{})
	updatedSubject   = bus.Subject(&eventsv1.TransactionUpdated{})
	finalizedSubject = bus.Subject(&eventsv1.TransactionFinalized{})
	rateSubject      = bus.Subject(&eventsv1.CurrencyRateSet{})
	registeredSubj   = bus.Subject(&eventsv1.JobRegistered{})
	startedSubj      = bus.Subject(&eventsv1.JobRunStarted{})
	completedSubj    = bus.Subject(&eventsv1.JobRunCompleted{})
	failedSubj       = bus.Subject(&eventsv1.JobRunFailed{})
)

// Consumers returns the durable consumer names of a group (the Postgres
// schema the events go to, so that replicas sharing a schema share the work
// and tests on their own schemas each see every event), one per subject.
func Consumers(group string) []string {
	var out []string
	for _, s := range allSubjects() {
		out = append(out, durableName(group, s))
	}
	return out
}

func allSubjects() []string {
	return []string{createdSubject, updatedSubject, finalizedSubject, rateSubject, registeredSubj, startedSubj, completedSubj, failedSubj}
}

// durableName is "<group>-aggregator-<event>", e.g.
// aggregator-aggregator-transaction_created.
func durableName(group, subject string) string {
	return group + "-aggregator-" + strings.TrimPrefix(subject, bus.SubjectPrefix)
}

// From says where a new consumer starts reading.
type From struct {
	// New starts with events published from now on.
	New bool
	// Time, when not zero, starts with events published since then.
	Time time.Time
}

// ParseFrom reads "all", "new" or an RFC 3339 time.
func ParseFrom(s string) (From, error) {
	switch s {
	case "", "all":
		return From{}, nil
	case "new":
		return From{New: true}, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return From{}, fmt.Errorf("want all, new or an RFC 3339 time, got %q", s)
	}
	return From{Time: t}, nil
}

// Options tune the consumers; zero values take the defaults.
type Options struct {
	// BatchSize is the most transaction events applied at once (500).
	BatchSize int
	// Linger is how long a batch waits to fill (50 ms).
	Linger time.Duration
	// AckWait is how long the server waits for an ack before redelivering
	// (20 s): after a crash, the events the dead process held come back
	// then.
	AckWait time.Duration
	// From is where a consumer that does not exist yet starts.
	From From
	// Logger receives failures.
	Logger *slog.Logger
}

func (o *Options) defaults() {
	if o.BatchSize <= 0 {
		o.BatchSize = 500
	}
	if o.Linger <= 0 {
		o.Linger = 50 * time.Millisecond
	}
	if o.AckWait <= 0 {
		o.AckWait = 20 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
}

// consumer creates or updates the durable consumer of subject. An existing
// consumer keeps its start.
func consumer(ctx context.Context, js jetstream.JetStream, durable, subject string, maxPending int, o Options) (jetstream.Consumer, error) {
	cfg := jetstream.ConsumerConfig{
		Durable:       durable,
		FilterSubject: subject,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.AckWait,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver:    -1,
		MaxAckPending: maxPending,
	}
	switch {
	case o.From.New:
		cfg.DeliverPolicy = jetstream.DeliverNewPolicy
	case !o.From.Time.IsZero():
		cfg.DeliverPolicy, cfg.OptStartTime = jetstream.DeliverByStartTimePolicy, &o.From.Time
	}
	if existing, err := js.Consumer(ctx, bus.StreamName, durable); err == nil {
		if info, err := existing.Info(ctx); err == nil {
			cfg.DeliverPolicy, cfg.OptStartTime = info.Config.DeliverPolicy, info.Config.OptStartTime
		}
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, bus.StreamName, cfg)
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", durable, err)
	}
	return cons, nil
}

// retryDelay is the redelivery delay of a message delivered n times.
func retryDelay(m jetstream.Msg) time.Duration {
	d := time.Second
	if md, err := m.Metadata(); err == nil {
		for i := uint64(1); i < md.NumDelivered && d < time.Minute; i++ {
			d *= 2
		}
	}
	return min(d, time.Minute)
}

// RunTransactions applies the transaction events with apply, in batches,
// until ctx ends; it then returns nil. A batch apply took is acked; one it
// failed comes back after a delay; a message that does not decode is
// terminated. apply must be idempotent (statistics.Service.Apply is: it
// compares versions).
func RunTransactions(ctx context.Context, js jetstream.JetStream, group string, apply func(context.Context, []statistics.State) (int, error), o Options) error {
	o.defaults()
	g, gctx := errgroup.WithContext(ctx)
	for _, subject := range []string{createdSubject, updatedSubject, finalizedSubject} {
		g.Go(func() error { return consumeTransactions(gctx, js, durableName(group, subject), subject, apply, o) })
	}
	return g.Wait()
}

func consumeTransactions(ctx context.Context, js jetstream.JetStream, durable, subject string, apply func(context.Context, []statistics.State) (int, error), o Options) error {
	log := o.Logger.With("consumer", durable)
	cons, err := consumer(ctx, js, durable, subject, 4*o.BatchSize, o)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	// The consumer's lag, for paygate_consumer_pending_messages.
	defer bus.StartLagSampler(ctx, cons, durable, 0)()
	msgs := make(chan jetstream.Msg, 2*o.BatchSize)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
			// Stopping: hand it back for the next run (or replica) at once.
			_ = m.Nak()
		}
	}, jetstream.PullMaxMessages(2*o.BatchSize), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if ctx.Err() == nil {
			log.WarnContext(ctx, "consume transaction events", "error", err)
		}
	}))
	if err != nil {
		return fmt.Errorf("consume %s: %w", durable, err)
	}
	defer stopAndReturn(cc, msgs, log)
	for {
		var first jetstream.Msg
		select {
		case <-ctx.Done():
			return nil
		case first = <-msgs:
		}
		batch := []jetstream.Msg{first}
		linger := time.NewTimer(o.Linger)
	fill:
		for len(batch) < o.BatchSize {
			select {
			case m := <-msgs:
				batch = append(batch, m)
			case <-linger.C:
				break fill
			case <-ctx.Done():
				break fill
			}
		}
		linger.Stop()
		applyBatch(ctx, log, durable, batch, apply)
	}
}

func applyBatch(ctx context.Context, log *slog.Logger, durable string, batch []jetstream.Msg, apply func(context.Context, []statistics.State) (int, error)) {
	// One consumer span per event, in the trace of the request that wrote
	// it, lasting until the batch is applied.
	spans := make([]trace.Span, len(batch))
	for i, m := range batch {
		_, spans[i] = bus.StartConsumeSpan(ctx, m, durable)
	}
	defer func() {
		for _, span := range spans {
			span.End()
		}
	}()
	states := make([]statistics.State, 0, len(batch))
	keep := batch[:0]
	for _, m := range batch {
		st, err := DecodeTransaction(m.Subject(), m.Data())
		if err != nil {
			log.ErrorContext(ctx, "transaction event dropped: it does not decode", "subject", m.Subject(), "error", err)
			_ = m.Term()
			continue
		}
		states = append(states, st)
		keep = append(keep, m)
	}
	if len(states) == 0 {
		return
	}
	if _, err := apply(ctx, states); err != nil {
		if ctx.Err() == nil {
			log.WarnContext(ctx, "transaction events not applied; they come back", "events", len(keep), "error", err)
		}
		for _, m := range keep {
			_ = m.NakWithDelay(retryDelay(m))
		}
		return
	}
	for _, m := range keep {
		if err := m.Ack(); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "ack transaction event", "error", err)
		}
	}
}

// stopAndReturn stops the consumer and hands back the messages received but
// not applied, so that they are delivered again at once rather than after
// AckWait (a run of a continuous job ends every lease).
func stopAndReturn(cc jetstream.ConsumeContext, msgs <-chan jetstream.Msg, log *slog.Logger) {
	stop(cc, log)
	for {
		select {
		case m := <-msgs:
			_ = m.Nak()
		default:
			return
		}
	}
}

func stop(cc jetstream.ConsumeContext, log *slog.Logger) {
	cc.Stop()
	select {
	case <-cc.Closed():
	case <-time.After(10 * time.Second):
		log.Warn("consumer did not stop within 10s")
	}
}

// DecodeTransaction reads a created, updated or finalized event's state.
func DecodeTransaction(subject string, data []byte) (statistics.State, error) {
	var ts *eventsv1.TransactionState
	switch subject {
	case createdSubject:
		var ev eventsv1.TransactionCreated
		if err := proto.Unmarshal(data, &ev); err != nil {
			return statistics.State{}, err
		}
		ts = ev.GetTransaction()
	case updatedSubject:
		var ev eventsv1.TransactionUpdated
		if err := proto.Unmarshal(data, &ev); err != nil {
			return statistics.State{}, err
		}
		ts = ev.GetTransaction()
	case finalizedSubject:
		var ev eventsv1.TransactionFinalized
		if err := proto.Unmarshal(data, &ev); err != nil {
			return statistics.State{}, err
		}
		ts = ev.GetTransaction()
	default:
		return statistics.State{}, fmt.Errorf("unexpected subject %s", subject)
	}
	return StateOf(ts)
}

// StateOf maps an event's (or a replay's) TransactionState to the
// domain's, refusing one the rollups cannot use.
func StateOf(ts *eventsv1.TransactionState) (statistics.State, error) {
	switch {
	case ts == nil || ts.GetTransactionId() == 0:
		return statistics.State{}, errors.New("event without a transaction")
	case ts.GetVersion() < 1:
		return statistics.State{}, fmt.Errorf("transaction %d without a version", ts.GetTransactionId())
	case ts.GetCreatedAt() == nil:
		return statistics.State{}, fmt.Errorf("transaction %d without created_at", ts.GetTransactionId())
	case !statistics.ValidDecimal(ts.GetAmount()):
		return statistics.State{}, fmt.Errorf("transaction %d amount %q is not a decimal", ts.GetTransactionId(), ts.GetAmount())
	}
	st := statistics.State{
		ID: ts.GetTransactionId(), Version: ts.GetVersion(), CreatedAt: ts.GetCreatedAt().AsTime(),
		MerchantID: ts.GetMerchantId(), CollabID: ts.GetCollabId(), ProviderID: ts.GetProviderId(),
		MerchantName: ts.GetMerchantName(), ProviderName: ts.GetProviderName(),
		Status: ts.GetStatus(), Type: ts.GetTransactionType(), Currency: ts.GetCurrency(), Amount: ts.GetAmount(),
	}
	if ts.GetUpdatedAt() != nil {
		st.UpdatedAt = ts.GetUpdatedAt().AsTime()
	} else {
		st.UpdatedAt = st.CreatedAt
	}
	return st, nil
}

// RateOf maps a CurrencyRateSet to the domain's rate.
func RateOf(ev *eventsv1.CurrencyRateSet) (statistics.Rate, error) {
	day, err := time.Parse(time.DateOnly, ev.GetEffectiveFrom())
	if err != nil {
		return statistics.Rate{}, fmt.Errorf("rate %d effective_from %q is not a day", ev.GetRateId(), ev.GetEffectiveFrom())
	}
	if !statistics.ValidDecimal(ev.GetUsdRate()) || ev.GetCurrency() == "" {
		return statistics.Rate{}, fmt.Errorf("rate %d is not a currency and a decimal rate", ev.GetRateId())
	}
	return statistics.Rate{ID: ev.GetRateId(), Currency: ev.GetCurrency(), EffectiveFrom: day, USDRate: ev.GetUsdRate()}, nil
}

// errPermanent marks an event that will never apply (it does not decode).
var errPermanent = errors.New("permanent")

// runEach hands the messages of each subject to handle one at a time, in
// stream order, until ctx ends: acked after nil, terminated after
// errPermanent, back after a delay otherwise.
func runEach(ctx context.Context, js jetstream.JetStream, group string, subjects []string, handle func(context.Context, jetstream.Msg) error, o Options) error {
	o.defaults()
	g, gctx := errgroup.WithContext(ctx)
	for _, subject := range subjects {
		g.Go(func() error { return consumeEach(gctx, js, durableName(group, subject), subject, handle, o) })
	}
	return g.Wait()
}

func consumeEach(ctx context.Context, js jetstream.JetStream, durable, subject string, handle func(context.Context, jetstream.Msg) error, o Options) error {
	log := o.Logger.With("consumer", durable)
	cons, err := consumer(ctx, js, durable, subject, 1, o)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	// The consumer's lag, for paygate_consumer_pending_messages.
	defer bus.StartLagSampler(ctx, cons, durable, 0)()
	cc, err := cons.Consume(func(m jetstream.Msg) {
		// The handler continues the trace of the request that wrote the event.
		hctx, span := bus.StartConsumeSpan(ctx, m, durable)
		err := handle(hctx, m)
		span.End()
		switch {
		case err == nil:
			_ = m.Ack()
		case errors.Is(err, errPermanent):
			log.ErrorContext(ctx, "event dropped: it does not decode", "subject", m.Subject(), "error", err)
			_ = m.Term()
		default:
			if ctx.Err() == nil {
				log.WarnContext(ctx, "event not applied; it comes back", "subject", m.Subject(), "error", err)
			}
			_ = m.NakWithDelay(retryDelay(m))
		}
	}, jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if ctx.Err() == nil {
			log.WarnContext(ctx, "consume events", "error", err)
		}
	}))
	if err != nil {
		return fmt.Errorf("consume %s: %w", durable, err)
	}
	<-ctx.Done()
	stop(cc, log)
	return nil
}

// RunRates applies the currency rate events with apply until ctx ends.
func RunRates(ctx context.Context, js jetstream.JetStream, group string, apply func(context.Context, []statistics.Rate) error, o Options) error {
	return runEach(ctx, js, group, []string{rateSubject}, func(ctx context.Context, m jetstream.Msg) error {
		var ev eventsv1.CurrencyRateSet
		if err := proto.Unmarshal(m.Data(), &ev); err != nil {
			return fmt.Errorf("%w: %v", errPermanent, err)
		}
		r, err := RateOf(&ev)
		if err != nil {
			return fmt.Errorf("%w: %v", errPermanent, err)
		}
		return apply(ctx, []statistics.Rate{r})
	}, o)
}

// RunJobs applies every service's job run events to svc until ctx ends.
func RunJobs(ctx context.Context, js jetstream.JetStream, group string, svc *jobstats.Service, o Options) error {
	subjects := []string{registeredSubj, startedSubj, completedSubj, failedSubj}
	return runEach(ctx, js, group, subjects, func(ctx context.Context, m jetstream.Msg) error {
		return HandleJobEvent(ctx, svc, m.Subject(), m.Data())
	}, o)
}

// HandleJobEvent applies one job event.
func HandleJobEvent(ctx context.Context, svc *jobstats.Service, subject string, data []byte) error {
	switch subject {
	case registeredSubj:
		var ev eventsv1.JobRegistered
		if err := proto.Unmarshal(data, &ev); err != nil || ev.GetJob() == "" {
			return fmt.Errorf("%w: job registered event does not decode", errPermanent)
		}
		return svc.Register(ctx, jobstats.Registered{Job: ev.GetJob(), Service: ev.GetService(),
			Description: ev.GetDescription(), IntervalMS: ev.GetIntervalMs(), StartedAt: ev.GetStartedAt().AsTime()})
	case startedSubj:
		var ev eventsv1.JobRunStarted
		if err := proto.Unmarshal(data, &ev); err != nil || ev.GetJob() == "" {
			return fmt.Errorf("%w: job run started event does not decode", errPermanent)
		}
		return svc.Start(ctx, jobstats.RunStarted{Job: ev.GetJob(), Service: ev.GetService(), RunID: ev.GetRunId(),
			StartedAt: ev.GetStartedAt().AsTime()})
	case completedSubj:
		var ev eventsv1.JobRunCompleted
		if err := proto.Unmarshal(data, &ev); err != nil || ev.GetJob() == "" {
			return fmt.Errorf("%w: job run completed event does not decode", errPermanent)
		}
		return svc.End(ctx, jobstats.RunEnded{Job: ev.GetJob(), Service: ev.GetService(), RunID: ev.GetRunId(),
			StartedAt: ev.GetStartedAt().AsTime(), EndedAt: ev.GetCompletedAt().AsTime(),
			NextRunExpectedAt: timeOrZero(ev.GetNextRunExpectedAt().AsTime(), ev.GetNextRunExpectedAt() != nil),
			Notifications:     notifications(ev.GetNotifications()), Runs: ev.GetRuns()})
	case failedSubj:
		var ev eventsv1.JobRunFailed
		if err := proto.Unmarshal(data, &ev); err != nil || ev.GetJob() == "" {
			return fmt.Errorf("%w: job run failed event does not decode", errPermanent)
		}
		errText := ev.GetError()
		if errText == "" {
			errText = "The run failed."
		}
		return svc.End(ctx, jobstats.RunEnded{Job: ev.GetJob(), Service: ev.GetService(), RunID: ev.GetRunId(),
			StartedAt: ev.GetStartedAt().AsTime(), EndedAt: ev.GetCompletedAt().AsTime(),
			NextRunExpectedAt: timeOrZero(ev.GetNextRunExpectedAt().AsTime(), ev.GetNextRunExpectedAt() != nil),
			Notifications:     notifications(ev.GetNotifications()), Runs: 1, Error: errText})
	}
	return fmt.Errorf("%w: unexpected subject %s", errPermanent, subject)
}

func timeOrZero(t time.Time, ok bool) time.Time {
	if !ok {
		return time.Time{}
	}
	return t
}

func notifications(ns []*eventsv1.JobNotification) []jobstats.Notification {
	out := make([]jobstats.Notification, len(ns))
	for i, n := range ns {
		out[i] = jobstats.Notification{Level: n.GetLevel(), At: n.GetAt().AsTime(), Message: n.GetMessage()}
	}
	return out
}
