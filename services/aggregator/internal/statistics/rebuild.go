package statistics

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"golang.org/x/sync/errgroup"
)

// Source is where a rebuild reads the gateway's transactions and rates
// (the gateway's ReplayService).
type Source interface {
	// IDRange returns the lowest and highest transaction id (0, 0 when
	// there are none).
	IDRange(ctx context.Context) (minID, maxID int64, err error)
	// Transactions calls page with the states of the transactions with
	// fromID <= id < toID, in id order, a page at a time.
	Transactions(ctx context.Context, fromID, toID int64, page func([]State) error) error
	// Rates calls page with every rate ever set, oldest first.
	Rates(ctx context.Context, page func([]Rate) error) error
}

// RebuildStore is what a rebuild needs of the store besides applying.
type RebuildStore interface {
	// Reset empties the states and rollups in one transaction and marks a
	// rebuild as started.
	Reset(ctx context.Context) error
	// PutStates stores each state whose version is higher than the stored
	// one (or that has none), as Apply does, but writes no rollup; it
	// returns how many it stored. The live consumer may apply events
	// meanwhile: both compare and set the same rows.
	PutStates(ctx context.Context, states []State) (int, error)
	// BuildRollups computes every rollup from the stored states (the minute
	// rollup from those made since minuteHorizon) and marks the rebuild as
	// finished, in one transaction that live batches wait for.
	BuildRollups(ctx context.Context, minuteHorizon time.Time) error
	// FinishRebuild marks the rebuild as finished.
	FinishRebuild(ctx context.Context) error
	// NeedsRebuild reports whether no rebuild ever finished (a new schema)
	// or the last one started did not.
	NeedsRebuild(ctx context.Context) (bool, error)
}

// Rebuilder replays the gateway's transactions into the rollups.
type Rebuilder struct {
	svc   *Service
	store RebuildStore
	src   Source
	// Span is how many ids one StreamTransactions call covers.
	Span int64
	// Parallel is how many calls are in flight.
	Parallel int
	// Batch is how many states one PutStates call stores (a call's pages
	// are gathered up to it).
	Batch int
	Log   *slog.Logger
}

// NewRebuilder returns a rebuilder of svc's rollups from src.
func NewRebuilder(svc *Service, store RebuildStore, src Source, log *slog.Logger) *Rebuilder {
	return &Rebuilder{svc: svc, store: store, src: src, Span: 100_000, Parallel: 4, Batch: 20_000, Log: log}
}

// Rebuild empties the states and rollups, stores every transaction state
// the gateway streams (PutStates: the same compare-and-set as live events,
// without the rollups), then computes the rollups from the stored states in
// one statement per rollup (BuildRollups), so that its cost does not depend
// on the order of the ids: a page of ids spread over the whole history
// costs what a page of one hour does. The live consumer may keep running: a
// state seen by both counts once, whichever comes first, since each stores
// it only over a lower version; what the consumer moves in the rollups
// before BuildRollups is replaced by it, and BuildRollups holds the
// consumer's batches until it commits. The id range is read after the
// reset, so that a transaction applied live before the reset is streamed
// again.
func (r *Rebuilder) Rebuild(ctx context.Context) error {
	if err := r.store.Reset(ctx); err != nil {
		return fmt.Errorf("rebuild: reset: %w", err)
	}
	if err := r.src.Rates(ctx, func(rates []Rate) error { return r.svc.ApplyRates(ctx, rates) }); err != nil {
		return fmt.Errorf("rebuild: rates: %w", err)
	}
	minID, maxID, err := r.src.IDRange(ctx)
	if err != nil {
		return fmt.Errorf("rebuild: id range: %w", err)
	}
	applied := 0
	if maxID > 0 {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(max(r.Parallel, 1))
		counts := make(chan int, 1024)
		done := make(chan struct{})
		go func() {
			for n := range counts {
				applied += n
			}
			close(done)
		}()
		for from := minID; from <= maxID; from += r.Span {
			to := min(from+r.Span, maxID+1)
			g.Go(func() error {
				var buf []State
				flush := func() error {
					n, err := r.store.PutStates(gctx, buf)
					if err == nil {
						counts <- n
					}
					buf = buf[:0]
					return err
				}
				err := r.src.Transactions(gctx, from, to, func(states []State) error {
					buf = append(buf, states...)
					if len(buf) < max(r.Batch, 1) {
						return nil
					}
					return flush()
				})
				if err != nil || len(buf) == 0 {
					return err
				}
				return flush()
			})
		}
		err := g.Wait()
		close(counts)
		<-done
		if err != nil {
			return fmt.Errorf("rebuild: transactions: %w", err)
		}
	}
	t0 := time.Now()
	if err := r.store.BuildRollups(ctx, MinuteHorizon(r.svc.now())); err != nil {
		return fmt.Errorf("rebuild: rollups: %w", err)
	}
	r.Log.InfoContext(ctx, "rebuild finished", "min_id", minID, "max_id", maxID, "applied", applied,
		"rollups_seconds", time.Since(t0).Seconds())
	return nil
}

// RebuildIfNeeded rebuilds when no rebuild ever finished (a new schema) or
// the last one did not, and the gateway has transactions; with none, it only
// marks the schema as rebuilt, so that live events alone fill it. Whether
// one is needed does not depend on the live consumer, which may apply
// events meanwhile.
func (r *Rebuilder) RebuildIfNeeded(ctx context.Context) error {
	need, err := r.store.NeedsRebuild(ctx)
	if err != nil || !need {
		return err
	}
	_, maxID, err := r.src.IDRange(ctx)
	if err != nil {
		return fmt.Errorf("rebuild: id range: %w", err)
	}
	if maxID == 0 {
		return r.store.FinishRebuild(ctx)
	}
	r.Log.InfoContext(ctx, "rebuild starts: the statistics are empty and the gateway has transactions", "max_id", maxID)
	return r.Rebuild(ctx)
}
