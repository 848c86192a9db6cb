// Package retry re-sends a filtered set of failed callback deliveries
// (docs/contracts-bulk.md, "Callbacks service"): the dry run, the runs with
// their state and progress, and "recover since T". The runs are durable jobs
// (river, services/internal/bulkqueue); a batch retries its deliveries and
// records them in one Postgres transaction, so no delivery is retried twice
// by one run.
package retry

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/apperr"
)

// The reasons a failed delivery is skipped.
const (
	SkipCallbacksCancelled = "callbacksCancelled"
	SkipURLDisabled        = "urlDisabled"
)

// The attempt statuses a filter may name.
const (
	AttemptAnswered    = "answered"
	AttemptUnreachable = "unreachable"
)

// Filter selects failed deliveries, as given.
type Filter struct {
	CollabID      int32  `json:"collabId,omitempty"`
	MerchantID    int32  `json:"merchantId,omitempty"`
	CallbackURLID int64  `json:"callbackUrlId,omitempty"`
	From          string `json:"from,omitempty"`
	To            string `json:"to,omitempty"`
	ResponseCode  int32  `json:"responseCode,omitempty"`
	AttemptStatus string `json:"attemptStatus,omitempty"`
}

// Selection is a validated filter with the caller's scope.
type Selection struct {
	Filter
	FromTime, ToTime *time.Time
	Scope            callback.Scope
}

// Parse validates f; every problem at once, fields by their JSON names.
func Parse(f Filter, scope callback.Scope) (Selection, error) {
	s := Selection{Filter: f, Scope: scope}
	var bad []string
	if f.CollabID < 0 {
		bad = append(bad, "filter.collabId must not be negative.")
	}
	if f.MerchantID < 0 {
		bad = append(bad, "filter.merchantId must not be negative.")
	}
	if f.CallbackURLID < 0 {
		bad = append(bad, "filter.callbackUrlId must not be negative.")
	}
	for _, x := range []struct {
		name string
		in   string
		out  **time.Time
	}{{"from", f.From, &s.FromTime}, {"to", f.To, &s.ToTime}} {
		if strings.TrimSpace(x.in) == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(x.in))
		if err != nil {
			bad = append(bad, fmt.Sprintf("filter.%s %q is not a time such as 2025-03-01T00:00:00Z.", x.name, x.in))
			continue
		}
		*x.out = &t
	}
	if s.FromTime != nil && s.ToTime != nil && s.ToTime.Before(*s.FromTime) {
		bad = append(bad, "filter.to must not be before filter.from.")
	}
	if f.ResponseCode < 0 || f.ResponseCode > 599 {
		bad = append(bad, "filter.responseCode must be an HTTP status code (100 to 599), or 0 for any.")
	}
	switch f.AttemptStatus {
	case "", AttemptAnswered, AttemptUnreachable:
	default:
		bad = append(bad, fmt.Sprintf("filter.attemptStatus %q is not answered or unreachable.", f.AttemptStatus))
	}
	if len(bad) > 0 {
		return s, apperr.Invalid("%s", strings.Join(bad, " "))
	}
	return s, nil
}

// State is a run's state.
type State string

// The states of a run.
const (
	StateQueued    State = "queued"
	StateRunning   State = "running"
	StatePaused    State = "paused"
	StateCancelled State = "cancelled"
	StateCompleted State = "completed"
	StateFailed    State = "failed"
)

// Run is one run with its progress.
type Run struct {
	ID                                    int64
	State                                 State
	Filter                                Filter
	Reason                                string
	CreatedBy                             int64
	CreatedByName                         string
	Scope                                 callback.Scope
	ExpectedCount, Total                  int64
	Processed, Retried, Skipped, CursorID int64
	RunSeconds                            float64
	CreatedAt, UpdatedAt                  time.Time
	FinishedAt                            *time.Time
}

// Throughput is deliveries processed per second of running time.
func (r Run) Throughput() float64 {
	if r.RunSeconds <= 0 {
		return 0
	}
	return float64(r.Processed) / r.RunSeconds
}

// Count is a count under a key.
type Count struct {
	Key    int64
	Reason string
	Count  int64
}

// Group is one group of the selected deliveries: a merchant and response
// code, how many, and how many would be skipped for each reason.
type Group struct {
	MerchantID                    int32
	ResponseCode                  int32
	Count, Cancelled, URLDisabled int64
}

// Sample is one delivery of the dry run's sample.
type Sample struct {
	DeliveryID, TransactionID int64
	MerchantID                int32
	URL                       string
	ResponseCode              int32
	FailedAt                  time.Time
}

// DryRun is what a retry would do.
type DryRun struct {
	Matched, WouldRetry        int64
	Skipped                    []Count
	ByMerchant, ByResponseCode []Count
	Sample                     []Sample
	Cap                        int64
	OverCap                    bool
}

// BatchResult is what one batch did.
type BatchResult struct {
	Processed, Retried, Skipped int64
	Done                        bool
	State                       State
}

// Store keeps the runs and retries batches.
type Store interface {
	Groups(ctx context.Context, s Selection) ([]Group, error)
	Sample(ctx context.Context, s Selection, n int) ([]Sample, error)
	// Create stores a queued run and enqueues its job in one transaction.
	Create(ctx context.Context, r Run) (Run, error)
	// Run returns a run (not found).
	Run(ctx context.Context, id int64) (Run, error)
	// Runs pages runs newest first before id (0: from the newest) within scope.
	Runs(ctx context.Context, scope callback.Scope, before int64, n int) ([]Run, error)
	// SetState moves a run from one of from to to (conflict otherwise);
	// enqueue queues its job again in the same transaction.
	SetState(ctx context.Context, id int64, from []State, to State, enqueue bool, at time.Time) (Run, error)
	// Started marks a queued run running.
	Started(ctx context.Context, id int64, at time.Time) (Run, error)
	// Batch retries up to limit deliveries of r after its cursor, with its
	// items and progress, in one transaction.
	Batch(ctx context.Context, r Run, s Selection, limit int, at time.Time) (BatchResult, error)
	// Finish ends a running run and adds the seconds it ran.
	Finish(ctx context.Context, id int64, to State, seconds float64, at time.Time) error
	// AddSeconds adds running time.
	AddSeconds(ctx context.Context, id int64, seconds float64) error
}

// Options are a run's limits and the dispatcher's wake-up.
type Options struct {
	// Cap is the most deliveries one run may select (100,000 when 0).
	Cap int64
	// Rate is deliveries per second per run (2,000 when 0).
	Rate int
	// Wake tells the dispatcher deliveries are due (nil: it finds them on
	// its next look).
	Wake func()
}

// Service serves the dry runs and runs.
type Service struct {
	store Store
	o     Options
	now   func() time.Time
}

// NewService returns the service.
func NewService(store Store, o Options, now func() time.Time) *Service {
	if o.Cap == 0 {
		o.Cap = 100000
	}
	if o.Rate == 0 {
		o.Rate = 2000
	}
	return &Service{store: store, o: o, now: now}
}

// DryRun says what a retry over f would do in the caller's scope.
func (s *Service) DryRun(ctx context.Context, scope callback.Scope, f Filter) (DryRun, error) {
	sel, err := Parse(f, scope)
	if err != nil {
		return DryRun{}, err
	}
	out := DryRun{Cap: s.o.Cap, Skipped: []Count{}, ByMerchant: []Count{}, ByResponseCode: []Count{}, Sample: []Sample{}}
	if !scope.All && len(scope.MerchantIDs) == 0 {
		return out, nil
	}
	groups, err := s.store.Groups(ctx, sel)
	if err != nil {
		return DryRun{}, fmt.Errorf("retry dry run: %w", err)
	}
	byMerchant, byCode := map[int64]int64{}, map[int64]int64{}
	var cancelled, disabled int64
	for _, g := range groups {
		out.Matched += g.Count
		byMerchant[int64(g.MerchantID)] += g.Count
		byCode[int64(g.ResponseCode)] += g.Count
		cancelled += g.Cancelled
		disabled += g.URLDisabled
	}
	out.WouldRetry = out.Matched - cancelled - disabled
	if cancelled > 0 {
		out.Skipped = append(out.Skipped, Count{Reason: SkipCallbacksCancelled, Count: cancelled})
	}
	if disabled > 0 {
		out.Skipped = append(out.Skipped, Count{Reason: SkipURLDisabled, Count: disabled})
	}
	out.ByMerchant, out.ByResponseCode = counts(byMerchant), counts(byCode)
	out.OverCap = out.WouldRetry > out.Cap
	if out.Sample, err = s.store.Sample(ctx, sel, 20); err != nil {
		return DryRun{}, fmt.Errorf("retry dry run sample: %w", err)
	}
	return out, nil
}

func counts(m map[int64]int64) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{Key: k, Count: n})
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (out[j].Count > out[j-1].Count || out[j].Count == out[j-1].Count && out[j].Key < out[j-1].Key); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Start starts a run over f with a reason, when the set did not grow beyond
// what the operator confirmed and stays under the cap.
func (s *Service) Start(ctx context.Context, actor callback.Actor, f Filter, reason string, expected int64) (Run, error) {
	var bad []string
	reason = strings.TrimSpace(reason)
	switch n := utf8.RuneCountInString(reason); {
	case n == 0:
		bad = append(bad, "reason is required: say why these callbacks are sent again.")
	case n > 500:
		bad = append(bad, "reason must be at most 500 characters.")
	}
	if expected < 0 {
		bad = append(bad, "expectedCount must not be negative.")
	}
	if _, err := Parse(f, actor.Scope); err != nil {
		bad = append(bad, apperr.As(err).PublicMessage())
	}
	if len(bad) > 0 {
		return Run{}, apperr.Invalid("%s", strings.Join(bad, " "))
	}
	dry, err := s.DryRun(ctx, actor.Scope, f)
	if err != nil {
		return Run{}, err
	}
	if dry.WouldRetry > expected+expected/10+10 {
		return Run{}, apperr.Conflict("The filter now selects %d failed deliveries, more than the %d you confirmed; run the dry run again.",
			dry.WouldRetry, expected)
	}
	if dry.OverCap {
		return Run{}, apperr.FailedPrecondition("The filter selects %d failed deliveries; a retry run is capped at %d.", dry.WouldRetry, dry.Cap)
	}
	now := s.now()
	return s.store.Create(ctx, Run{State: StateQueued, Filter: f, Reason: reason, CreatedBy: actor.UserID, CreatedByName: actor.Username,
		Scope: actor.Scope, ExpectedCount: expected, Total: dry.Matched, CreatedAt: now, UpdatedAt: now})
}

func visible(scope callback.Scope, r Run) bool {
	if scope.All {
		return true
	}
	if r.Scope.All {
		return false
	}
	for _, m := range r.Scope.MerchantIDs {
		if !scope.Includes(m) {
			return false
		}
	}
	return true
}

const msgNotFound = "The callback retry run was not found."

// Get returns a run the caller may see.
func (s *Service) Get(ctx context.Context, scope callback.Scope, id int64) (Run, error) {
	r, err := s.store.Run(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound || err == nil && !visible(scope, r) {
		return Run{}, apperr.NotFound(msgNotFound)
	}
	return r, err
}

// List pages the runs the caller may see; next is the next page's key.
func (s *Service) List(ctx context.Context, scope callback.Scope, before int64, size int32) ([]Run, int64, error) {
	n := int(size)
	switch {
	case size == 0:
		n = 20
	case size < 1 || size > 100:
		return nil, 0, apperr.Invalid("pageSize must be between 1 and 100.")
	}
	runs, err := s.store.Runs(ctx, scope, before, n+1)
	if err != nil {
		return nil, 0, err
	}
	var next int64
	if len(runs) > n {
		runs = runs[:n]
		next = runs[n-1].ID
	}
	return runs, next, nil
}

// Change pauses, resumes or cancels a run.
func (s *Service) Change(ctx context.Context, scope callback.Scope, id int64, verb string) (Run, error) {
	var from []State
	var to State
	enqueue := false
	switch verb {
	case "pause":
		from, to = []State{StateQueued, StateRunning}, StatePaused
	case "resume":
		from, to, enqueue = []State{StatePaused}, StateQueued, true
	case "cancel":
		from, to = []State{StateQueued, StateRunning, StatePaused}, StateCancelled
	default:
		return Run{}, apperr.Invalid("verb %q is not pause, resume or cancel.", verb)
	}
	r, err := s.Get(ctx, scope, id)
	if err != nil {
		return Run{}, err
	}
	out, err := s.store.SetState(ctx, id, from, to, enqueue, s.now())
	if apperr.KindOf(err) == apperr.KindConflict {
		if cur, err2 := s.store.Run(ctx, id); err2 == nil {
			r = cur
		}
		done := map[string]string{"pause": "paused", "resume": "resumed", "cancel": "cancelled"}[verb]
		return Run{}, apperr.Conflict("Callback retry run %d is %s; it cannot be %s.", id, r.State, done)
	}
	return out, err
}

// BatchSize is how many deliveries one batch treats.
const BatchSize = 500

// Work works run id until it is done, paused or cancelled, or deadline
// passes (more: it has work left).
func (s *Service) Work(ctx context.Context, id int64, deadline time.Time) (bool, error) {
	r, err := s.store.Started(ctx, id, s.now())
	if err != nil || r.State != StateRunning {
		return false, err
	}
	sel, err := Parse(r.Filter, r.Scope)
	if err != nil {
		return false, s.store.Finish(ctx, id, StateFailed, 0, s.now())
	}
	began := s.now()
	spent := func() float64 { return s.now().Sub(began).Seconds() }
	for {
		start := s.now()
		limit := min(BatchSize, s.o.Rate)
		res, err := s.store.Batch(ctx, r, sel, limit, start)
		if err != nil {
			_ = s.store.AddSeconds(context.WithoutCancel(ctx), id, spent())
			return false, err
		}
		if res.Retried > 0 && s.o.Wake != nil {
			s.o.Wake()
		}
		if res.State != StateRunning {
			return false, s.store.AddSeconds(ctx, id, spent())
		}
		if res.Done {
			return false, s.store.Finish(ctx, id, StateCompleted, spent(), s.now())
		}
		if wait := time.Duration(float64(res.Processed)/float64(s.o.Rate)*float64(time.Second)) - s.now().Sub(start); wait > 0 {
			select {
			case <-ctx.Done():
				_ = s.store.AddSeconds(context.WithoutCancel(ctx), id, spent())
				return false, ctx.Err()
			case <-time.After(wait):
			}
		}
		if s.now().After(deadline) {
			return true, s.store.AddSeconds(ctx, id, spent())
		}
	}
}
