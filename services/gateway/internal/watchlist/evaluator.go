package watchlist

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/payment"
)

// Evaluation pace (docs/contracts-watchlists.md, "Evaluation").
const (
	// MinInterval is the least time between two computations of a group.
	MinInterval = time.Second
	// RefreshInterval recomputes every group although no event came: a
	// rolling window changes as time passes.
	RefreshInterval = 15 * time.Second
	// ReloadInterval rereads the definitions (changes made on another
	// replica).
	ReloadInterval = 5 * time.Second
	tick           = 100 * time.Millisecond
	parallel       = 4
)

// Publisher sends computed values to the owners' live streams.
type Publisher interface {
	PublishValues(ctx context.Context, values []Value) error
}

// group is the watchlists that share one computation.
type group struct {
	key     string
	filter  payment.ListFilter
	valid   bool
	members []Watchlist
	last    time.Time
	dirty   bool
}

// Evaluator recomputes the watchlists as transactions change, raises and
// re-arms their alerts, and publishes their values. One runs per
// deployment (the job gateway.watchlist-evaluator).
type Evaluator struct {
	store Store
	pub   Publisher
	now   func() time.Time
	log   *slog.Logger

	mu       sync.Mutex
	groups   map[string]*group
	loaded   time.Time
	reload   bool
	wake     chan struct{}
	computed int64
}

// NewEvaluator returns an evaluator.
func NewEvaluator(store Store, pub Publisher, now func() time.Time, log *slog.Logger) *Evaluator {
	return &Evaluator{store: store, pub: pub, now: now, log: log, groups: map[string]*group{}, wake: make(chan struct{}, 1)}
}

// Changed asks for the definitions to be read again at once.
func (e *Evaluator) Changed() {
	e.mu.Lock()
	e.reload = true
	e.mu.Unlock()
	e.poke()
}

func (e *Evaluator) poke() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// Touch marks dirty the groups a change of a transaction of merchant m and
// collab c may move.
func (e *Evaluator) Touch(m, c int32) {
	e.mu.Lock()
	hit := false
	for _, g := range e.groups {
		f := g.filter
		if !g.valid || g.dirty || !f.Scope.Includes(m) || (f.MerchantID != 0 && f.MerchantID != m) ||
			(f.CollabID != 0 && f.CollabID != c) {
			continue
		}
		g.dirty, hit = true, true
	}
	e.mu.Unlock()
	if hit {
		e.poke()
	}
}

// Computed is how many group computations ran (for tests and metrics).
func (e *Evaluator) Computed() int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.computed
}

// Run evaluates until stop closes or ctx ends.
func (e *Evaluator) Run(ctx context.Context, stop <-chan struct{}) error {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		e.Step(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-stop:
			return nil
		case <-t.C:
		case <-e.wake:
		}
	}
}

// Step does one round: reloads the definitions when due, then computes the
// groups due (dirty and not computed within MinInterval, or not computed
// within RefreshInterval).
func (e *Evaluator) Step(ctx context.Context) {
	now := e.now()
	e.mu.Lock()
	needLoad := e.reload || now.Sub(e.loaded) >= ReloadInterval
	e.reload = false
	e.mu.Unlock()
	if needLoad {
		if err := e.load(ctx, now); err != nil && ctx.Err() == nil {
			e.log.Error("load watchlists", "error", err)
		}
	}
	e.mu.Lock()
	var due []*group
	for _, g := range e.groups {
		age := now.Sub(g.last)
		if (g.dirty && age >= MinInterval) || age >= RefreshInterval {
			g.dirty = false
			g.last = now
			due = append(due, g)
		}
	}
	e.mu.Unlock()
	if len(due) == 0 {
		return
	}
	var (
		wg     sync.WaitGroup
		sem    = make(chan struct{}, parallel)
		mu     sync.Mutex
		values []Value
	)
	for _, g := range due {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			vs := e.evaluate(ctx, g, now)
			mu.Lock()
			values = append(values, vs...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	e.mu.Lock()
	e.computed += int64(len(due))
	e.mu.Unlock()
	if len(values) > 0 {
		if err := e.pub.PublishValues(ctx, values); err != nil && ctx.Err() == nil {
			e.log.Warn("publish watchlist values", "error", err)
		}
	}
}

// evaluate computes g and applies each member's threshold.
func (e *Evaluator) evaluate(ctx context.Context, g *group, now time.Time) []Value {
	e.mu.Lock()
	members := slices.Clone(g.members)
	e.mu.Unlock()
	t, err := compute(ctx, e.store, members[0], now)
	if err != nil {
		if ctx.Err() == nil {
			e.log.Warn("compute watchlist", "watchlist_id", members[0].ID, "error", err)
		}
		return nil
	}
	out := make([]Value, 0, len(members))
	for i, w := range members {
		w.Crossed = e.applyThreshold(ctx, w, t, now)
		members[i] = w
		out = append(out, valueOf(w, t, now))
	}
	e.mu.Lock()
	if cur, ok := e.groups[g.key]; ok && cur == g {
		for i := range g.members {
			for _, m := range members {
				if g.members[i].ID == m.ID {
					g.members[i].Crossed = m.Crossed
				}
			}
		}
	}
	e.mu.Unlock()
	return out
}

// applyThreshold raises or re-arms w's alert and answers its state.
func (e *Evaluator) applyThreshold(ctx context.Context, w Watchlist, t Totals, now time.Time) bool {
	if w.Threshold == nil {
		return false
	}
	v, ok := measure(w, t)
	if !ok {
		return w.Crossed
	}
	over := crossedBy(w, v)
	switch {
	case over && !w.Crossed:
		if _, _, err := e.store.Cross(ctx, w, decimalText(v), now); err != nil {
			e.log.Error("raise watchlist alert", "watchlist_id", w.ID, "error", err)
			return false
		}
		return true
	case !over && w.Crossed:
		if err := e.store.Rearm(ctx, w.ID); err != nil {
			e.log.Error("re-arm watchlist", "watchlist_id", w.ID, "error", err)
			return true
		}
		return false
	}
	return w.Crossed
}

// load reads every watchlist and regroups them, keeping the pace of the
// groups that remain.
func (e *Evaluator) load(ctx context.Context, now time.Time) error {
	all, err := e.store.All(ctx)
	if err != nil {
		return err
	}
	next := map[string]*group{}
	for _, w := range all {
		key := groupKey(w)
		g, ok := next[key]
		if !ok {
			g = &group{key: key, dirty: true}
			f, err := payment.ParseListQuery(w.Filter)
			if err == nil {
				f.Scope = w.Scope
				g.filter, g.valid = f, true
			}
			next[key] = g
		}
		g.members = append(g.members, w)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for key, g := range next {
		if old, ok := e.groups[key]; ok {
			g.last, g.dirty = old.last, old.dirty
			if !slices.EqualFunc(old.members, g.members, func(a, b Watchlist) bool { return a.ID == b.ID }) {
				g.dirty = true
			}
		}
	}
	e.groups, e.loaded = next, now
	return nil
}
