package postgres

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// FoldTotals moves the deltas that transactions' triggers appended into the
// hourly and daily rollups of the list's totals (migration 0010) and
// returns how many it moved; 0 when another process is folding. Rollups not
// built yet (a table that had rows before migration 0010) are built first.
func (p *Payments) FoldTotals(ctx context.Context) (int64, error) {
	var built bool
	if err := p.pool.QueryRow(ctx, totalsBuilt).Scan(&built); err != nil {
		return 0, fmt.Errorf("read transaction totals state: %w", err)
	}
	if !built {
		var n *int64
		if err := p.pool.QueryRow(ctx, `SELECT build_transaction_totals(true)`).Scan(&n); err != nil {
			return 0, fmt.Errorf("build transaction totals: %w", err)
		}
		if n != nil { // built here, not by another replica
			if err := p.analyzeTotals(ctx); err != nil {
				return 0, err
			}
		}
	}
	var moved int64
	if err := p.pool.QueryRow(ctx, `SELECT fold_transaction_totals()`).Scan(&moved); err != nil {
		return 0, fmt.Errorf("fold transaction totals: %w", err)
	}
	return moved, nil
}

// BuildTotals recomputes the list's rollups from the transactions, without
// blocking writers, and returns the number of transactions it counted: a
// repair, since FoldTotals builds them when they never were.
func (p *Payments) BuildTotals(ctx context.Context) (int64, error) {
	var n int64
	if err := p.pool.QueryRow(ctx, `SELECT build_transaction_totals()`).Scan(&n); err != nil {
		return 0, fmt.Errorf("build transaction totals: %w", err)
	}
	return n, p.analyzeTotals(ctx)
}

// analyzeTotals vacuums and analyzes rollups just built: the planner has
// no statistics of them yet, and the list reads them index-only, which
// needs their pages marked all-visible.
func (p *Payments) analyzeTotals(ctx context.Context) error {
	if _, err := p.pool.Exec(ctx, `VACUUM (ANALYZE) transaction_totals_hourly, transaction_totals_daily`); err != nil {
		return fmt.Errorf("analyze transaction totals: %w", err)
	}
	return nil
}

// RunTotals folds the list's totals (FoldTotals) every interval until ctx
// ends. A failed fold is logged and tried again at the next tick: the
// deltas wait, and the counts stay exact meanwhile. After a fold that moved
// deltas it vacuums their table, which the list scans: at thousands of
// changes a second, waiting for autovacuum (a minute apart at least) would
// leave it hundreds of thousands of dead rows long.
func (p *Payments) RunTotals(ctx context.Context, every time.Duration, log *slog.Logger) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		if _, err := p.FoldTotalsOnce(ctx); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "fold transaction totals", "error", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// FoldTotalsOnce is one pass of RunTotals (the job gateway.totals-fold
// runs it every PAYGATE_TOTALS_FOLD_INTERVAL): FoldTotals, then a vacuum of
// the deltas' table when deltas moved. It returns how many moved.
func (p *Payments) FoldTotalsOnce(ctx context.Context) (int64, error) {
	moved, err := p.FoldTotals(ctx)
	if err != nil || moved == 0 {
		return moved, err
	}
	if _, err := p.pool.Exec(ctx, `VACUUM (SKIP_LOCKED) transaction_totals_delta`); err != nil {
		return moved, fmt.Errorf("vacuum transaction totals deltas: %w", err)
	}
	return moved, nil
}
