package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/callbacks/internal/retry"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Retries implements retry.Store (migration 0007).
type Retries struct {
	pool *pgxpool.Pool
	// Enqueue queues run id's job in tx; set before the first run starts.
	Enqueue func(ctx context.Context, tx pgx.Tx, runID int64) error
}

var _ retry.Store = (*Retries)(nil)

// NewRetries returns the retry runs' store on pool.
func NewRetries(pool *pgxpool.Pool) *Retries { return &Retries{pool: pool} }

// retryFrom is the failed deliveries with their transaction, URL and last
// attempt (found through the attempts' transaction index).
const retryFrom = ` FROM deliveries d
	JOIN transactions t ON t.id = d.transaction_id
	LEFT JOIN callback_urls u ON u.id = d.callback_url_id
	LEFT JOIN LATERAL (SELECT a.id, a.response_code FROM attempts a
		WHERE a.transaction_id = d.transaction_id AND a.delivery_id = d.id ORDER BY a.id DESC LIMIT 1) la ON true`

// retryWhere is the WHERE clause of a selection, scope included, and its
// arguments numbered from 1.
func retryWhere(s retry.Selection, extra ...string) (string, []any) {
	parts := []string{"d.status = 'failed'"}
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		parts = append(parts, strings.Replace(cond, "?", "$"+strconv.Itoa(len(args)), 1))
	}
	if !s.Scope.All {
		add("d.merchant_id = ANY(?::integer[])", s.Scope.MerchantIDs)
	}
	if s.CollabID != 0 {
		add("t.collab_id = ?", s.CollabID)
	}
	if s.MerchantID != 0 {
		add("d.merchant_id = ?", s.MerchantID)
	}
	if s.CallbackURLID != 0 {
		add("d.callback_url_id = ?", s.CallbackURLID)
	}
	if s.FromTime != nil {
		add("d.updated_at >= ?", *s.FromTime)
	}
	if s.ToTime != nil {
		add("d.updated_at <= ?", *s.ToTime)
	}
	if s.ResponseCode != 0 {
		add("la.response_code = ?", s.ResponseCode)
	}
	switch s.AttemptStatus {
	case retry.AttemptAnswered:
		parts = append(parts, "la.response_code > 0")
	case retry.AttemptUnreachable:
		parts = append(parts, "COALESCE(la.response_code, 0) = 0")
	}
	return " WHERE " + strings.Join(append(parts, extra...), " AND "), args
}

// Groups implements retry.Store.
func (r *Retries) Groups(ctx context.Context, s retry.Selection) ([]retry.Group, error) {
	where, args := retryWhere(s)
	rows, err := r.pool.Query(ctx, `SELECT d.merchant_id, COALESCE(la.response_code, 0), count(*),
			count(*) FILTER (WHERE t.callbacks_canceled),
			count(*) FILTER (WHERE NOT t.callbacks_canceled AND NOT COALESCE(u.is_enabled, false))`+
		retryFrom+where+` GROUP BY 1, 2`, args...)
	if err != nil {
		return nil, fmt.Errorf("count failed deliveries: %w", err)
	}
	var out []retry.Group
	var g retry.Group
	_, err = pgx.ForEachRow(rows, []any{&g.MerchantID, &g.ResponseCode, &g.Count, &g.Cancelled, &g.URLDisabled}, func() error {
		out = append(out, g)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count failed deliveries: %w", err)
	}
	return out, nil
}

// Sample implements retry.Store.
func (r *Retries) Sample(ctx context.Context, s retry.Selection, n int) ([]retry.Sample, error) {
	where, args := retryWhere(s)
	rows, err := r.pool.Query(ctx, `SELECT d.id, d.transaction_id, d.merchant_id, d.url, COALESCE(la.response_code, 0), d.updated_at`+
		retryFrom+where+` ORDER BY d.updated_at DESC, d.id DESC LIMIT `+strconv.Itoa(n), args...)
	if err != nil {
		return nil, fmt.Errorf("sample failed deliveries: %w", err)
	}
	out := []retry.Sample{}
	var x retry.Sample
	_, err = pgx.ForEachRow(rows, []any{&x.DeliveryID, &x.TransactionID, &x.MerchantID, &x.URL, &x.ResponseCode, &x.FailedAt}, func() error {
		out = append(out, x)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sample failed deliveries: %w", err)
	}
	return out, nil
}

const retryRunColumns = `id, state, filter, reason, created_by, created_by_name, scope_all, scope_merchants, expected_count,
	total, processed, retried, skipped, cursor_id, run_seconds, created_at, updated_at, finished_at`

func scanRetryRun(row pgx.Row) (retry.Run, error) {
	var x retry.Run
	var filter []byte
	err := row.Scan(&x.ID, &x.State, &filter, &x.Reason, &x.CreatedBy, &x.CreatedByName, &x.Scope.All, &x.Scope.MerchantIDs,
		&x.ExpectedCount, &x.Total, &x.Processed, &x.Retried, &x.Skipped, &x.CursorID, &x.RunSeconds, &x.CreatedAt, &x.UpdatedAt, &x.FinishedAt)
	if err != nil {
		return x, err
	}
	if err := json.Unmarshal(filter, &x.Filter); err != nil {
		return x, fmt.Errorf("filter of retry run %d: %w", x.ID, err)
	}
	return x, nil
}

// Create implements retry.Store.
func (r *Retries) Create(ctx context.Context, run retry.Run) (retry.Run, error) {
	filter, err := json.Marshal(run.Filter)
	if err != nil {
		return retry.Run{}, fmt.Errorf("encode retry filter: %w", err)
	}
	merchants := run.Scope.MerchantIDs
	if merchants == nil {
		merchants = []int32{}
	}
	var out retry.Run
	err = pgdb.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		out, err = scanRetryRun(tx.QueryRow(ctx, `INSERT INTO callback_retries (filter, reason, created_by, created_by_name, scope_all,
				scope_merchants, expected_count, total, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING `+retryRunColumns,
			filter, run.Reason, run.CreatedBy, run.CreatedByName, run.Scope.All, merchants, run.ExpectedCount, run.Total, run.CreatedAt))
		if err != nil {
			return fmt.Errorf("insert retry run: %w", err)
		}
		return r.Enqueue(ctx, tx, out.ID)
	})
	return out, err
}

// Run implements retry.Store.
func (r *Retries) Run(ctx context.Context, id int64) (retry.Run, error) {
	x, err := scanRetryRun(r.pool.QueryRow(ctx, `SELECT `+retryRunColumns+` FROM callback_retries WHERE id = $1`, id))
	if err != nil {
		return x, pgdb.Translate(err, "The callback retry run")
	}
	return x, nil
}

// Runs implements retry.Store.
func (r *Retries) Runs(ctx context.Context, scope callback.Scope, before int64, n int) ([]retry.Run, error) {
	var parts []string
	var args []any
	if !scope.All {
		args = append(args, scope.MerchantIDs)
		parts = append(parts, "NOT scope_all AND scope_merchants <@ $1::integer[]")
	}
	if before > 0 {
		args = append(args, before)
		parts = append(parts, "id < $"+strconv.Itoa(len(args)))
	}
	where := ""
	if len(parts) > 0 {
		where = " WHERE " + strings.Join(parts, " AND ")
	}
	rows, err := r.pool.Query(ctx, `SELECT `+retryRunColumns+` FROM callback_retries`+where+` ORDER BY id DESC LIMIT `+strconv.Itoa(n), args...)
	if err != nil {
		return nil, fmt.Errorf("list retry runs: %w", err)
	}
	defer rows.Close()
	out := []retry.Run{}
	for rows.Next() {
		x, err := scanRetryRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// SetState implements retry.Store.
func (r *Retries) SetState(ctx context.Context, id int64, from []retry.State, to retry.State, enqueue bool, at time.Time) (retry.Run, error) {
	states := make([]string, len(from))
	for i, s := range from {
		states[i] = string(s)
	}
	var out retry.Run
	err := pgdb.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		var err error
		out, err = scanRetryRun(tx.QueryRow(ctx, `UPDATE callback_retries SET state = $2, updated_at = $3,
				finished_at = CASE WHEN $2 IN ('cancelled', 'completed', 'failed') THEN $3 ELSE finished_at END
			WHERE id = $1 AND state = ANY($4) RETURNING `+retryRunColumns, id, string(to), at, states))
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.Conflict("Callback retry run %d is not %v.", id, from)
		}
		if err != nil {
			return fmt.Errorf("set state of retry run %d: %w", id, err)
		}
		if enqueue {
			return r.Enqueue(ctx, tx, id)
		}
		return nil
	})
	return out, err
}

// Started implements retry.Store.
func (r *Retries) Started(ctx context.Context, id int64, at time.Time) (retry.Run, error) {
	x, err := scanRetryRun(r.pool.QueryRow(ctx, `UPDATE callback_retries SET
			state = CASE WHEN state = 'queued' THEN 'running' ELSE state END, updated_at = $2
		WHERE id = $1 RETURNING `+retryRunColumns, id, at))
	if err != nil {
		return x, pgdb.Translate(err, "The callback retry run")
	}
	return x, nil
}

// Finish implements retry.Store.
func (r *Retries) Finish(ctx context.Context, id int64, to retry.State, seconds float64, at time.Time) error {
	_, err := r.pool.Exec(ctx, `UPDATE callback_retries SET state = $2, run_seconds = run_seconds + $3, finished_at = $4, updated_at = $4
		WHERE id = $1 AND state = 'running'`, id, string(to), seconds, at)
	if err != nil {
		return fmt.Errorf("finish retry run %d: %w", id, err)
	}
	return nil
}

// AddSeconds implements retry.Store.
func (r *Retries) AddSeconds(ctx context.Context, id int64, seconds float64) error {
	if _, err := r.pool.Exec(ctx, `UPDATE callback_retries SET run_seconds = run_seconds + $2 WHERE id = $1`, id, seconds); err != nil {
		return fmt.Errorf("time of retry run %d: %w", id, err)
	}
	return nil
}

// Batch implements retry.Store: lock the run, lock the next failed
// deliveries after its cursor, record an item for each (one already there
// is left alone), send the new ones again as RetryCallbackAttempt does
// (pending now, one more attempt allowed, the last attempt Retried, the
// tally's failed count down), and move the cursor and counts, all in one
// Postgres transaction.
func (r *Retries) Batch(ctx context.Context, run retry.Run, s retry.Selection, limit int, at time.Time) (retry.BatchResult, error) {
	var res retry.BatchResult
	err := pgdb.InTx(ctx, r.pool, func(tx pgx.Tx) error {
		var state string
		var cursor int64
		if err := tx.QueryRow(ctx, `SELECT state, cursor_id FROM callback_retries WHERE id = $1 FOR UPDATE`, run.ID).Scan(&state, &cursor); err != nil {
			return pgdb.Translate(err, "The callback retry run")
		}
		res.State = retry.State(state)
		if res.State != retry.StateRunning {
			return nil
		}
		where, args := retryWhere(s)
		args = append(args, cursor)
		rows, err := tx.Query(ctx, `SELECT d.id, d.transaction_id, d.merchant_id, t.callbacks_canceled, COALESCE(u.is_enabled, false),
				COALESCE(la.id, 0)`+retryFrom+where+` AND d.id > $`+strconv.Itoa(len(args))+
			` ORDER BY d.id LIMIT `+strconv.Itoa(limit)+` FOR UPDATE OF d`, args...)
		if err != nil {
			return fmt.Errorf("select batch of retry run %d: %w", run.ID, err)
		}
		type cand struct {
			id, tx, lastAttempt int64
			merchant            int32
			cancelled, enabled  bool
		}
		var cands []cand
		var c cand
		if _, err := pgx.ForEachRow(rows, []any{&c.id, &c.tx, &c.merchant, &c.cancelled, &c.enabled, &c.lastAttempt}, func() error {
			cands = append(cands, c)
			return nil
		}); err != nil {
			return fmt.Errorf("select batch of retry run %d: %w", run.ID, err)
		}
		res.Done = len(cands) < limit
		if len(cands) == 0 {
			return nil
		}
		ids := make([]int64, len(cands))
		outcomes := make([]string, len(cands))
		for i, c := range cands {
			ids[i] = c.id
			switch {
			case c.cancelled:
				outcomes[i] = "skipped:" + retry.SkipCallbacksCancelled
			case !c.enabled:
				outcomes[i] = "skipped:" + retry.SkipURLDisabled
			default:
				outcomes[i] = "retried"
			}
		}
		irows, err := tx.Query(ctx, `INSERT INTO callback_retry_items (run_id, delivery_id, outcome)
			SELECT $1, d, o FROM unnest($2::bigint[], $3::text[]) AS x(d, o)
			ON CONFLICT (run_id, delivery_id) DO NOTHING RETURNING delivery_id`, run.ID, ids, outcomes)
		if err != nil {
			return fmt.Errorf("record items of retry run %d: %w", run.ID, err)
		}
		fresh := map[int64]bool{}
		var id int64
		if _, err := pgx.ForEachRow(irows, []any{&id}, func() error { fresh[id] = true; return nil }); err != nil {
			return fmt.Errorf("record items of retry run %d: %w", run.ID, err)
		}
		var retryIDs, attemptIDs []int64
		d := deltas{}
		for i, c := range cands {
			if !fresh[c.id] {
				continue
			}
			res.Processed++
			if outcomes[i] != "retried" {
				res.Skipped++
				continue
			}
			res.Retried++
			retryIDs = append(retryIDs, c.id)
			if c.lastAttempt != 0 {
				attemptIDs = append(attemptIDs, c.lastAttempt)
			}
			// The delivery goes from failed back to pending.
			d.add(c.tx, c.merchant, 0, 0, -1)
		}
		if len(retryIDs) > 0 {
			if _, err := tx.Exec(ctx, `UPDATE deliveries d SET status = 'pending', max_attempts = GREATEST(d.max_attempts, d.attempts_made + 1),
					next_attempt_at = $2, lease_id = NULL, lease_until = NULL, updated_at = $2, url = u.url, sign = u.add_signature
				FROM callback_urls u WHERE d.id = ANY($1) AND u.id = d.callback_url_id`, retryIDs, at); err != nil {
				return fmt.Errorf("requeue deliveries of retry run %d: %w", run.ID, err)
			}
			if _, err := tx.Exec(ctx, `UPDATE attempts SET status = 'Retried' WHERE id = ANY($1) AND status = 'Failed'`, attemptIDs); err != nil {
				return fmt.Errorf("mark attempts retried: %w", err)
			}
			if err := d.write(ctx, tx, at); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, `UPDATE callback_retries SET cursor_id = $2, processed = processed + $3, retried = retried + $4,
				skipped = skipped + $5, updated_at = $6 WHERE id = $1`, run.ID, ids[len(ids)-1], res.Processed, res.Retried, res.Skipped, at)
		if err != nil {
			return fmt.Errorf("progress of retry run %d: %w", run.ID, err)
		}
		return nil
	})
	return res, err
}
