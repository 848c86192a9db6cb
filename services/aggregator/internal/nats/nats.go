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
	From bus.Start
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

// route is the consumer of subject under durable, with the options' batch,
// linger, ack wait and start, and at most maxPending messages out.
func route(durable, subject string, size, maxPending int, o Options) bus.Route {
	return bus.Route{Durable: durable, Subject: subject, Start: o.From, AckWait: o.AckWait, Size: size, Linger: o.Linger,
		MaxAckPending: maxPending, Logger: o.Logger}
}

func consumeTransactions(ctx context.Context, js jetstream.JetStream, durable, subject string, apply func(context.Context, []statistics.State) (int, error), o Options) error {
	return bus.Run(ctx, js, route(durable, subject, o.BatchSize, 4*o.BatchSize, o), func(ctx context.Context, batch []bus.Delivery, settle *bus.Settle) error {
		states := make([]statistics.State, 0, len(batch))
		for _, d := range batch {
			st, err := DecodeTransaction(d.Msg.Subject(), d.Msg.Data())
			if err != nil {
				settle.Drop(d.Msg, fmt.Errorf("transaction event does not decode: %w", err))
				continue
			}
			states = append(states, st)
		}
		if len(states) == 0 {
			return nil
		}
		_, err := apply(ctx, states)
		return err
	})
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
	// One message out at a time: the events apply in stream order.
	return bus.Run(ctx, js, route(durable, subject, 1, 1, o), func(_ context.Context, batch []bus.Delivery, _ *bus.Settle) error {
		err := handle(batch[0].Ctx, batch[0].Msg)
		if errors.Is(err, errPermanent) {
			return fmt.Errorf("%w: %w", bus.ErrPermanent, err)
		}
		return err
	})
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
