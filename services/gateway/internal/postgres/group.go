package postgres

import (
	"context"
	"sync"
	"time"
)

// group commits the writes of concurrent callers together: a caller that
// finds fewer than maxInFlight batches being written writes the waiting
// calls (its own among them) as one batch; the others wait, and the first
// of them writes the next batch when one finishes. No goroutine of its own
// runs, and a lone caller writes at once: the batches grow with the load
// (the calls that arrive while a batch is written), not with a timer.
type group[In, Out any] struct {
	// write writes a batch and sets every item's out or err.
	write       func(ctx context.Context, items []*groupItem[In, Out])
	maxInFlight int
	maxBatch    int
	// timeout bounds a batch, which is not cancelled with the caller that
	// happens to write it.
	timeout time.Duration

	mu       sync.Mutex
	pending  []*groupItem[In, Out]
	inFlight int
}

// groupItem is one caller's write.
type groupItem[In, Out any] struct {
	// ctx is the caller's: an item whose caller went away before its batch
	// is written is not written (as a single write would fail).
	ctx context.Context
	in  In
	out Out
	err error
	// turn receives the batch this caller is to write, or nil once
	// another caller wrote its item.
	turn chan []*groupItem[In, Out]
}

func newGroup[In, Out any](maxInFlight int, write func(context.Context, []*groupItem[In, Out])) *group[In, Out] {
	return &group[In, Out]{write: write, maxInFlight: maxInFlight, maxBatch: 256, timeout: 30 * time.Second}
}

// do writes in with the calls of other callers and returns its result.
func (g *group[In, Out]) do(ctx context.Context, in In) (Out, error) {
	it := &groupItem[In, Out]{ctx: ctx, in: in, turn: make(chan []*groupItem[In, Out], 1)}
	g.mu.Lock()
	g.pending = append(g.pending, it)
	var batch []*groupItem[In, Out]
	if g.inFlight < g.maxInFlight {
		g.inFlight++
		batch = g.take()
	}
	g.mu.Unlock()
	if batch == nil {
		batch = <-it.turn
	}
	for batch != nil {
		batch = g.run(ctx, it, batch)
	}
	return it.out, it.err
}

// take removes up to maxBatch pending items, the oldest first. Called with
// mu held.
func (g *group[In, Out]) take() []*groupItem[In, Out] {
	n := min(len(g.pending), g.maxBatch)
	batch := g.pending[:n:n]
	g.pending = g.pending[n:]
	if len(g.pending) == 0 {
		g.pending = nil
	}
	return batch
}

// run writes batch, releases its callers and hands the next batch to the
// first of its items. It returns the next batch when that is self's own (a
// caller whose item is still pending behind a full batch).
func (g *group[In, Out]) run(ctx context.Context, self *groupItem[In, Out], batch []*groupItem[In, Out]) []*groupItem[In, Out] {
	live := make([]*groupItem[In, Out], 0, len(batch))
	for _, it := range batch {
		if err := it.ctx.Err(); err != nil {
			it.err = err
			continue
		}
		live = append(live, it)
	}
	if len(live) > 0 {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.timeout)
		g.write(wctx, live)
		cancel()
	}
	mine := false
	for _, it := range batch {
		if it == self {
			mine = true
			continue
		}
		it.turn <- nil
	}
	g.mu.Lock()
	var next []*groupItem[In, Out]
	if len(g.pending) > 0 {
		next = g.take()
	} else {
		g.inFlight--
	}
	g.mu.Unlock()
	if next == nil {
		return nil
	}
	if !mine && next[0] == self {
		return next
	}
	next[0].turn <- next
	if !mine {
		// self's item is still pending: wait for it like any caller.
		return <-self.turn
	}
	return nil
}
