// Package bulk runs an action over every transaction a list filter selects
// (docs/contracts-bulk.md): the dry run, the runs with their state and
// progress, and the rules of which transaction each action applies to.
// The runs themselves are durable jobs (river, in the postgres adapter); a
// batch is applied with its items in one Postgres transaction, so no
// transaction gets an action twice from one run.
package bulk

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Action is what a run does to each transaction.
type Action string

// The actions (JSON names).
const (
	RequeuePolling  Action = "requeuePolling"
	ResendCallbacks Action = "resendCallbacks"
	MarkFailed      Action = "markFailed"
	CancelCallbacks Action = "cancelCallbacks"
	Export          Action = "export"
)

// Actions lists every action, in the order the console offers them.
var Actions = []Action{RequeuePolling, ResendCallbacks, MarkFailed, CancelCallbacks, Export}

// The reasons a transaction is skipped.
const (
	SkipFinal              = "final"
	SkipNotFinal           = "notFinal"
	SkipCallbacksCancelled = "callbacksCancelled"
	SkipNoProviderID       = "noProviderId"
	SkipPollingUnsupported = "pollingUnsupported"
)

// ParseAction reads an action's JSON name.
func ParseAction(s string) (Action, error) {
	for _, a := range Actions {
		if string(a) == s {
			return a, nil
		}
	}
	if s == "" {
		return "", apperr.Invalid("action is required: one of requeuePolling, resendCallbacks, markFailed, cancelCallbacks, export.")
	}
	return "", apperr.Invalid("action %q is not one of requeuePolling, resendCallbacks, markFailed, cancelCallbacks, export.", s)
}

// Candidate is what an action's rule reads of a transaction.
type Candidate struct {
	Status            payment.Status
	CallbacksCanceled bool
	ProviderTID       string
	SupportsPolling   bool
}

// Skip returns why action a does not apply to c, or "" when it applies.
func (a Action) Skip(c Candidate) string {
	switch a {
	case RequeuePolling:
		switch {
		case c.Status.Final():
			return SkipFinal
		case c.ProviderTID == "":
			return SkipNoProviderID
		case !c.SupportsPolling:
			return SkipPollingUnsupported
		}
	case ResendCallbacks:
		switch {
		case !c.Status.Final():
			return SkipNotFinal
		case c.CallbacksCanceled:
			return SkipCallbacksCancelled
		}
	case MarkFailed:
		if c.Status.Final() {
			return SkipFinal
		}
	case CancelCallbacks:
		if c.CallbacksCanceled {
			return SkipCallbacksCancelled
		}
	}
	return ""
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

// Finished reports whether s is an end state.
func (s State) Finished() bool {
	return s == StateCancelled || s == StateCompleted || s == StateFailed
}

// Run is one run of an action with its progress.
type Run struct {
	ID     int64
	Action Action
	State  State
	// Query is the filter as given (the list's query, stored as JSON).
	Query     payment.ListQuery
	Reason    string
	CreatedBy int64
	// CreatedByName is the creator's username.
	CreatedByName string
	// Scope is the creator's scope, applied to every batch.
	Scope                                         merchant.Scope
	ExpectedCount, Total                          int64
	Processed, Applied, Skipped, Failed, CursorID int64
	LastError                                     string
	RunSeconds                                    float64
	CreatedAt, UpdatedAt                          time.Time
	StartedAt, FinishedAt                         *time.Time
}

// Throughput is the transactions processed per second of running time.
func (r Run) Throughput() float64 {
	if r.RunSeconds <= 0 {
		return 0
	}
	return float64(r.Processed) / r.RunSeconds
}

// Count is a count of transactions under a key.
type Count struct {
	Key    int32
	Reason string
	Count  int64
}

// Group is one group of the filter's rows for the dry run: a status and
// collab, how many, and how many of those have their callbacks cancelled,
// no provider id, or a provider that cannot be polled.
type Group struct {
	Status                                            payment.Status
	CollabID                                          int32
	Count, CallbacksCanceled, NoProviderID, NoPolling int64
}

// DryRun is what an action would do over a filter.
type DryRun struct {
	Action              Action
	Matched, WouldApply int64
	Skipped             []Count
	ByStatus, ByCollab  []Count
	Sample              []payment.Transaction
	Cap                 int64
	OverCap             bool
}

// Operator is who starts or changes a run.
type Operator struct {
	UserID   int64
	Username string
	Scope    merchant.Scope
}

// BatchResult is what one batch did.
type BatchResult struct {
	Processed, Applied, Skipped, Failed int64
	// Done: the filter has no transaction after the cursor.
	Done bool
	// State is the run's state as the batch read it (paused, cancelled:
	// the worker stops).
	State State
}

// Store keeps the runs and applies batches.
type Store interface {
	// Groups counts the filter's rows by status and collab; providerIDs:
	// also those without a provider id (NoProviderID).
	Groups(ctx context.Context, f payment.ListFilter, providerIDs bool) ([]Group, error)
	// Sample returns up to n of the filter's rows, newest first.
	Sample(ctx context.Context, f payment.ListFilter, n int) ([]payment.Transaction, error)
	// Create stores a queued run and enqueues its job in one transaction.
	Create(ctx context.Context, r Run) (Run, error)
	// Run returns a run (not found).
	Run(ctx context.Context, id int64) (Run, error)
	// Runs pages runs newest first, before the key (id 0: from the newest),
	// visible within scope.
	Runs(ctx context.Context, scope merchant.Scope, state State, beforeID int64, n int) ([]Run, error)
	// SetState moves a run from one of from to to (conflict when its state
	// is not one of from); enqueue queues its job again in the same
	// transaction.
	SetState(ctx context.Context, id int64, from []State, to State, enqueue bool, at time.Time) (Run, error)
	// Batch treats up to limit transactions of run r after its cursor (see
	// the package comment); resend sends a transaction's callbacks again,
	// for ResendCallbacks.
	Batch(ctx context.Context, r Run, f payment.ListFilter, limit int, at time.Time, resend Resender) (BatchResult, error)
	// Finish ends a running run (completed or failed, with its error) and
	// adds the seconds it ran.
	Finish(ctx context.Context, id int64, to State, lastError string, seconds float64, at time.Time) error
	// Started marks a queued run running (first start time kept).
	Started(ctx context.Context, id int64, at time.Time) (Run, error)
	// AddSeconds adds running time to a run.
	AddSeconds(ctx context.Context, id int64, seconds float64) error
}

// Resender sends a final transaction's callbacks again, idempotently under
// key.
type Resender func(ctx context.Context, transactionID int64, key string) error

// Limits are the settings a run reads.
type Limits struct {
	Cap  func(context.Context) int
	Rate func(context.Context) int
}

// Service serves the dry runs and the runs.
type Service struct {
	store  Store
	limits Limits
	resend Resender
	now    func() time.Time
}

// NewService returns the service.
func NewService(store Store, limits Limits, resend Resender, now func() time.Time) *Service {
	return &Service{store: store, limits: limits, resend: resend, now: now}
}

// MaxReason is the longest reason, in characters.
const MaxReason = 500

// SampleSize is how many rows a dry run shows.
const SampleSize = 20

// filter validates q as the list does and adds scope.
func filter(q payment.ListQuery, scope merchant.Scope) (payment.ListFilter, error) {
	q.Page, q.Take, q.IncludeTotals = nil, nil, false
	f, err := payment.ParseListQuery(q)
	if err != nil {
		return f, prefixFilter(err)
	}
	f.Scope = scope
	return f, nil
}

// prefixFilter names the list's fields as fields of filter.
func prefixFilter(err error) error {
	if apperr.KindOf(err) != apperr.KindInvalid {
		return err
	}
	return apperr.Invalid("filter: %s", messageOf(err))
}

// messageOf is err's public message.
func messageOf(err error) string {
	if e := apperr.As(err); e != nil {
		return e.PublicMessage()
	}
	return err.Error()
}

// DryRun says what action a would do over q in op's scope.
func (s *Service) DryRun(ctx context.Context, op Operator, a Action, q payment.ListQuery) (DryRun, error) {
	f, err := filter(q, op.Scope)
	if err != nil {
		return DryRun{}, err
	}
	out := DryRun{Action: a, Cap: int64(s.limits.Cap(ctx)), Skipped: []Count{}, ByStatus: []Count{}, ByCollab: []Count{},
		Sample: []payment.Transaction{}}
	if !op.Scope.All && len(op.Scope.MerchantIDs) == 0 {
		return out, nil
	}
	groups, err := s.store.Groups(ctx, f, a == RequeuePolling)
	if err != nil {
		return DryRun{}, fmt.Errorf("dry run groups: %w", err)
	}
	byStatus, byCollab, skipped := map[int32]int64{}, map[int32]int64{}, map[string]int64{}
	for _, g := range groups {
		out.Matched += g.Count
		byStatus[int32(g.Status)] += g.Count
		byCollab[g.CollabID] += g.Count
		out.WouldApply += g.apply(a, skipped)
	}
	out.ByStatus, out.ByCollab = counts(byStatus), counts(byCollab)
	for _, reason := range []string{SkipFinal, SkipNotFinal, SkipCallbacksCancelled, SkipNoProviderID, SkipPollingUnsupported} {
		if n := skipped[reason]; n > 0 {
			out.Skipped = append(out.Skipped, Count{Reason: reason, Count: n})
		}
	}
	out.OverCap = out.WouldApply > out.Cap
	if out.Sample, err = s.store.Sample(ctx, f, SampleSize); err != nil {
		return DryRun{}, fmt.Errorf("dry run sample: %w", err)
	}
	return out, nil
}

// apply adds g's skipped rows under their reasons and returns how many of
// g's rows a applies to. Within a group, the rule's conditions are checked
// in the rule's order (Action.Skip), counted from the group's sub-counts.
func (g Group) apply(a Action, skipped map[string]int64) int64 {
	switch a {
	case RequeuePolling:
		if g.Status.Final() {
			skipped[SkipFinal] += g.Count
			return 0
		}
		skipped[SkipNoProviderID] += g.NoProviderID
		skipped[SkipPollingUnsupported] += g.NoPolling
		return g.Count - g.NoProviderID - g.NoPolling
	case ResendCallbacks:
		if !g.Status.Final() {
			skipped[SkipNotFinal] += g.Count
			return 0
		}
		skipped[SkipCallbacksCancelled] += g.CallbacksCanceled
		return g.Count - g.CallbacksCanceled
	case MarkFailed:
		if g.Status.Final() {
			skipped[SkipFinal] += g.Count
			return 0
		}
		return g.Count
	case CancelCallbacks:
		skipped[SkipCallbacksCancelled] += g.CallbacksCanceled
		return g.Count - g.CallbacksCanceled
	}
	return g.Count
}

func counts(m map[int32]int64) []Count {
	out := make([]Count, 0, len(m))
	for k, n := range m {
		out = append(out, Count{Key: k, Count: n})
	}
	// Largest first, then by key: a stable order for the console.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && (out[j].Count > out[j-1].Count || out[j].Count == out[j-1].Count && out[j].Key < out[j-1].Key); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Start starts a run of a over q with a reason, after checking the set did
// not grow beyond what the operator confirmed and stays under the cap.
func (s *Service) Start(ctx context.Context, op Operator, a Action, q payment.ListQuery, reason string, expected int64) (Run, error) {
	var bad []string
	if a == Export {
		bad = append(bad, "action: export is not a run; export the filter with the Export wizard (POST /api/v1/files/export).")
	}
	reason = strings.TrimSpace(reason)
	switch n := utf8.RuneCountInString(reason); {
	case n == 0:
		bad = append(bad, "reason is required: say why these transactions are changed.")
	case n > MaxReason:
		bad = append(bad, fmt.Sprintf("reason must be at most %d characters.", MaxReason))
	}
	if expected < 0 {
		bad = append(bad, "expectedCount must not be negative.")
	}
	if _, err := filter(q, op.Scope); err != nil {
		if apperr.KindOf(err) != apperr.KindInvalid {
			return Run{}, err
		}
		bad = append(bad, messageOf(err))
	}
	if len(bad) > 0 {
		return Run{}, apperr.Invalid("%s", strings.Join(bad, " "))
	}
	dry, err := s.DryRun(ctx, op, a, q)
	if err != nil {
		return Run{}, err
	}
	if dry.WouldApply > expected+expected/10+10 {
		return Run{}, apperr.Conflict("The filter now selects %d transactions, more than the %d you confirmed; run the dry run again.",
			dry.WouldApply, expected)
	}
	if dry.OverCap {
		return Run{}, apperr.FailedPrecondition("The filter selects %d transactions; a bulk run is capped at %d (setting BulkActionCap).",
			dry.WouldApply, dry.Cap)
	}
	return s.store.Create(ctx, Run{Action: a, State: StateQueued, Query: q, Reason: reason, CreatedBy: op.UserID,
		CreatedByName: op.Username, Scope: op.Scope, ExpectedCount: expected, Total: dry.Matched, CreatedAt: s.now()})
}

// visible reports whether a caller of scope may see r: every merchant of
// r's scope is in theirs.
func visible(scope merchant.Scope, r Run) bool {
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

const msgRunNotFound = "The bulk run was not found."

// Get returns a run the caller may see.
func (s *Service) Get(ctx context.Context, scope merchant.Scope, id int64) (Run, error) {
	r, err := s.store.Run(ctx, id)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return Run{}, apperr.NotFound(msgRunNotFound)
		}
		return Run{}, err
	}
	if !visible(scope, r) {
		return Run{}, apperr.NotFound(msgRunNotFound)
	}
	return r, nil
}

// MaxPage is the most runs a page holds.
const MaxPage = 100

// List pages the runs the caller may see, newest first; next is the id to
// pass as before for the next page (0 on the last).
func (s *Service) List(ctx context.Context, scope merchant.Scope, state string, before int64, size int32) (runs []Run, next int64, err error) {
	var bad []string
	if state != "" && !knownState(State(state)) {
		bad = append(bad, fmt.Sprintf("state %q is not one of queued, running, paused, cancelled, completed, failed.", state))
	}
	n := int(size)
	switch {
	case size == 0:
		n = 20
	case size < 1 || size > MaxPage:
		bad = append(bad, fmt.Sprintf("pageSize must be between 1 and %d.", MaxPage))
	}
	if len(bad) > 0 {
		return nil, 0, apperr.Invalid("%s", strings.Join(bad, " "))
	}
	runs, err = s.store.Runs(ctx, scope, State(state), before, n+1)
	if err != nil {
		return nil, 0, fmt.Errorf("list bulk runs: %w", err)
	}
	if len(runs) > n {
		runs = runs[:n]
		next = runs[n-1].ID
	}
	return runs, next, nil
}

func knownState(s State) bool {
	switch s {
	case StateQueued, StateRunning, StatePaused, StateCancelled, StateCompleted, StateFailed:
		return true
	}
	return false
}

// Pause pauses a queued or running run.
func (s *Service) Pause(ctx context.Context, scope merchant.Scope, id int64) (Run, error) {
	return s.move(ctx, scope, id, []State{StateQueued, StateRunning}, StatePaused, false, "paused")
}

// Resume queues a paused run again.
func (s *Service) Resume(ctx context.Context, scope merchant.Scope, id int64) (Run, error) {
	return s.move(ctx, scope, id, []State{StatePaused}, StateQueued, true, "resumed")
}

// Cancel stops a run that has not finished.
func (s *Service) Cancel(ctx context.Context, scope merchant.Scope, id int64) (Run, error) {
	return s.move(ctx, scope, id, []State{StateQueued, StateRunning, StatePaused}, StateCancelled, false, "cancelled")
}

func (s *Service) move(ctx context.Context, scope merchant.Scope, id int64, from []State, to State, enqueue bool, verb string) (Run, error) {
	r, err := s.Get(ctx, scope, id)
	if err != nil {
		return Run{}, err
	}
	out, err := s.store.SetState(ctx, id, from, to, enqueue, s.now())
	if apperr.KindOf(err) == apperr.KindConflict {
		if cur, err2 := s.store.Run(ctx, id); err2 == nil {
			r = cur
		}
		return Run{}, apperr.Conflict("Bulk run %d is %s; it cannot be %s.", id, r.State, verb)
	}
	return out, err
}

// BatchSize is how many transactions one batch treats.
const BatchSize = 500

// Work runs run id until it is done, paused or cancelled, or until
// deadline: more is true when the run has work left (the job comes back).
// A batch's action, items and progress are one Postgres transaction.
func (s *Service) Work(ctx context.Context, id int64, deadline time.Time) (more bool, err error) {
	r, err := s.store.Started(ctx, id, s.now())
	if err != nil {
		return false, err
	}
	if r.State != StateRunning {
		return false, nil
	}
	f, err := filter(r.Query, r.Scope)
	if err != nil {
		// Checked at start: only a rule changed since can refuse it.
		return false, s.store.Finish(ctx, id, StateFailed, messageOf(err), 0, s.now())
	}
	began := s.now()
	for {
		start := s.now()
		rate := s.limits.Rate(ctx)
		limit := min(BatchSize, max(rate, 1))
		res, err := s.store.Batch(ctx, r, f, limit, start, s.resend)
		if err != nil {
			_ = s.store.AddSeconds(context.WithoutCancel(ctx), id, s.now().Sub(began).Seconds())
			return false, err
		}
		if res.State != StateRunning {
			return false, s.store.AddSeconds(ctx, id, s.now().Sub(began).Seconds())
		}
		if res.Done {
			return false, s.store.Finish(ctx, id, StateCompleted, "", s.now().Sub(began).Seconds(), s.now())
		}
		// The rate: limit transactions take at least limit/rate seconds.
		if wait := time.Duration(float64(res.Processed)/float64(rate)*float64(time.Second)) - s.now().Sub(start); wait > 0 {
			select {
			case <-ctx.Done():
				_ = s.store.AddSeconds(context.WithoutCancel(ctx), id, s.now().Sub(began).Seconds())
				return false, ctx.Err()
			case <-time.After(wait):
			}
		}
		if s.now().After(deadline) {
			return true, s.store.AddSeconds(ctx, id, s.now().Sub(began).Seconds())
		}
	}
}

// QueryJSON encodes a run's filter for storage.
func QueryJSON(q payment.ListQuery) ([]byte, error) { return json.Marshal(q) }
