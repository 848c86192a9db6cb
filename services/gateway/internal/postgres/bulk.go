package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/bulk"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// BulkRuns implements bulk.Store (migration 0034): the runs, their items,
// and the batches that apply an action with its items, journal entries,
// events and progress in one Postgres transaction.
type BulkRuns struct {
	pool *pgxpool.Pool
	// Enqueue queues run id's job in tx (BulkQueue.InsertTx); set before
	// the first run starts.
	Enqueue func(ctx context.Context, tx pgx.Tx, runID int64) error
}

var _ bulk.Store = (*BulkRuns)(nil)

// NewBulkRuns returns the runs' store on pool.
func NewBulkRuns(pool *pgxpool.Pool) *BulkRuns { return &BulkRuns{pool: pool} }

const entityBulkRun = "The bulk run"

const bulkRunColumns = `id, action, state, filter, reason, created_by, created_by_name, scope_all, scope_merchants,
	expected_count, total, processed, applied, skipped, failed, cursor_id, last_error, run_seconds,
	created_at, updated_at, started_at, finished_at`

func scanBulkRun(row pgx.Row) (bulk.Run, error) {
	var r bulk.Run
	var filter []byte
	err := row.Scan(&r.ID, &r.Action, &r.State, &filter, &r.Reason, &r.CreatedBy, &r.CreatedByName, &r.Scope.All,
		&r.Scope.MerchantIDs, &r.ExpectedCount, &r.Total, &r.Processed, &r.Applied, &r.Skipped, &r.Failed, &r.CursorID,
		&r.LastError, &r.RunSeconds, &r.CreatedAt, &r.UpdatedAt, &r.StartedAt, &r.FinishedAt)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(filter, &r.Query); err != nil {
		return r, fmt.Errorf("filter of bulk run %d: %w", r.ID, err)
	}
	return r, nil
}

// Groups implements bulk.Store: one GROUP BY over the filter's rows, an
// index-only scan of transactions_bulk_idx (migration 0034) for a status
// filter; for requeuePolling one more count of the rows without a provider
// id (few, through the provider id's index); then the providers that cannot
// be polled.
func (b *BulkRuns) Groups(ctx context.Context, f payment.ListFilter, providerIDs bool) ([]bulk.Group, error) {
	type key struct {
		status   payment.Status
		collab   int32
		provider int32
	}
	c := listConditions(microseconds(f))
	rows, err := b.pool.Query(ctx, `SELECT status, collab_id, provider_id, count(*), count(*) FILTER (WHERE callbacks_canceled)
		FROM transactions`+c.where()+` GROUP BY 1, 2, 3`, c.args...)
	if err != nil {
		return nil, fmt.Errorf("count transactions by status and collab: %w", err)
	}
	groups := map[key]*bulk.Group{}
	var order []key
	var k key
	var n, cancelled int64
	if _, err := pgx.ForEachRow(rows, []any{&k.status, &k.collab, &k.provider, &n, &cancelled}, func() error {
		groups[k] = &bulk.Group{Status: k.status, CollabID: k.collab, Count: n, CallbacksCanceled: cancelled}
		order = append(order, k)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("count transactions by status and collab: %w", err)
	}
	if providerIDs && len(order) > 0 {
		c := listConditions(microseconds(f))
		c.parts = append(c.parts, "(provider_transaction_id IS NULL OR provider_transaction_id = '')")
		rows, err := b.pool.Query(ctx, `SELECT status, collab_id, provider_id, count(*) FROM transactions`+c.where()+` GROUP BY 1, 2, 3`, c.args...)
		if err != nil {
			return nil, fmt.Errorf("count transactions without a provider id: %w", err)
		}
		if _, err := pgx.ForEachRow(rows, []any{&k.status, &k.collab, &k.provider, &n}, func() error {
			if g := groups[k]; g != nil {
				g.NoProviderID = n
			}
			return nil
		}); err != nil {
			return nil, fmt.Errorf("count transactions without a provider id: %w", err)
		}
	}
	providers := make([]int32, 0, len(order))
	for _, k := range order {
		providers = append(providers, k.provider)
	}
	noPolling := map[int32]bool{}
	if len(providers) > 0 {
		rows, err := b.pool.Query(ctx, `SELECT id FROM providers WHERE id = ANY($1) AND NOT supports_polling`, providers)
		if err != nil {
			return nil, fmt.Errorf("providers without polling: %w", err)
		}
		var id int32
		if _, err := pgx.ForEachRow(rows, []any{&id}, func() error { noPolling[id] = true; return nil }); err != nil {
			return nil, fmt.Errorf("providers without polling: %w", err)
		}
	}
	out := make([]bulk.Group, 0, len(order))
	for _, k := range order {
		g := *groups[k]
		if noPolling[k.provider] {
			g.NoPolling = g.Count - g.NoProviderID
		}
		out = append(out, g)
	}
	return out, nil
}

// Sample implements bulk.Store.
func (b *BulkRuns) Sample(ctx context.Context, f payment.ListFilter, n int) ([]payment.Transaction, error) {
	c := listConditions(microseconds(f))
	rows, err := b.pool.Query(ctx, `SELECT `+transactionColumns+` FROM transactions`+c.where()+
		` ORDER BY created_at DESC, id DESC LIMIT `+strconv.Itoa(n), c.args...)
	if err != nil {
		return nil, fmt.Errorf("sample transactions: %w", err)
	}
	defer rows.Close()
	out := []payment.Transaction{}
	for rows.Next() {
		t, err := scanTransaction(rows)
		if err != nil {
			return nil, fmt.Errorf("sample transactions: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Create implements bulk.Store.
func (b *BulkRuns) Create(ctx context.Context, r bulk.Run) (bulk.Run, error) {
	filter, err := bulk.QueryJSON(r.Query)
	if err != nil {
		return bulk.Run{}, fmt.Errorf("encode bulk filter: %w", err)
	}
	merchants := r.Scope.MerchantIDs
	if merchants == nil {
		merchants = []int32{}
	}
	var out bulk.Run
	err = pgdb.InTx(ctx, b.pool, func(tx pgx.Tx) error {
		out, err = scanBulkRun(tx.QueryRow(ctx, `INSERT INTO bulk_runs (action, state, filter, reason, created_by, created_by_name,
				scope_all, scope_merchants, expected_count, total, created_at, updated_at)
			VALUES ($1, 'queued', $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING `+bulkRunColumns,
			r.Action, filter, r.Reason, r.CreatedBy, r.CreatedByName, r.Scope.All, merchants, r.ExpectedCount, r.Total, r.CreatedAt))
		if err != nil {
			return fmt.Errorf("insert bulk run: %w", err)
		}
		return b.Enqueue(ctx, tx, out.ID)
	})
	return out, err
}

// Run implements bulk.Store.
func (b *BulkRuns) Run(ctx context.Context, id int64) (bulk.Run, error) {
	r, err := scanBulkRun(b.pool.QueryRow(ctx, `SELECT `+bulkRunColumns+` FROM bulk_runs WHERE id = $1`, id))
	if err != nil {
		return r, pgdb.Translate(err, entityBulkRun)
	}
	return r, nil
}

// Runs implements bulk.Store.
func (b *BulkRuns) Runs(ctx context.Context, scope merchant.Scope, state bulk.State, beforeID int64, n int) ([]bulk.Run, error) {
	var c conditions
	if !scope.All {
		c.add("NOT scope_all AND scope_merchants <@ ?::integer[]", scope.MerchantIDs)
	}
	if state != "" {
		c.add("state = ?", string(state))
	}
	if beforeID > 0 {
		c.add("id < ?", beforeID)
	}
	rows, err := b.pool.Query(ctx, `SELECT `+bulkRunColumns+` FROM bulk_runs`+c.where()+` ORDER BY id DESC LIMIT `+strconv.Itoa(n), c.args...)
	if err != nil {
		return nil, fmt.Errorf("list bulk runs: %w", err)
	}
	defer rows.Close()
	out := []bulk.Run{}
	for rows.Next() {
		r, err := scanBulkRun(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// SetState implements bulk.Store.
func (b *BulkRuns) SetState(ctx context.Context, id int64, from []bulk.State, to bulk.State, enqueue bool, at time.Time) (bulk.Run, error) {
	states := make([]string, len(from))
	for i, s := range from {
		states[i] = string(s)
	}
	var out bulk.Run
	err := pgdb.InTx(ctx, b.pool, func(tx pgx.Tx) error {
		var err error
		out, err = scanBulkRun(tx.QueryRow(ctx, `UPDATE bulk_runs SET state = $2, updated_at = $3,
				finished_at = CASE WHEN $2 IN ('cancelled', 'completed', 'failed') THEN $3 ELSE finished_at END
			WHERE id = $1 AND state = ANY($4) RETURNING `+bulkRunColumns, id, string(to), at, states))
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.Conflict("Bulk run %d is not %v.", id, from)
		}
		if err != nil {
			return fmt.Errorf("set state of bulk run %d: %w", id, err)
		}
		if enqueue {
			return b.Enqueue(ctx, tx, id)
		}
		return nil
	})
	return out, err
}

// Started implements bulk.Store.
func (b *BulkRuns) Started(ctx context.Context, id int64, at time.Time) (bulk.Run, error) {
	r, err := scanBulkRun(b.pool.QueryRow(ctx, `UPDATE bulk_runs SET
			state = CASE WHEN state = 'queued' THEN 'running' ELSE state END,
			started_at = COALESCE(started_at, $2), updated_at = $2
		WHERE id = $1 RETURNING `+bulkRunColumns, id, at))
	if err != nil {
		return r, pgdb.Translate(err, entityBulkRun)
	}
	return r, nil
}

// Finish implements bulk.Store.
func (b *BulkRuns) Finish(ctx context.Context, id int64, to bulk.State, lastError string, seconds float64, at time.Time) error {
	_, err := b.pool.Exec(ctx, `UPDATE bulk_runs SET state = $2, last_error = CASE WHEN $3 <> '' THEN $3 ELSE last_error END,
			run_seconds = run_seconds + $4, finished_at = $5, updated_at = $5
		WHERE id = $1 AND state = 'running'`, id, string(to), lastError, seconds, at)
	if err != nil {
		return fmt.Errorf("finish bulk run %d: %w", id, err)
	}
	return nil
}

// AddSeconds implements bulk.Store.
func (b *BulkRuns) AddSeconds(ctx context.Context, id int64, seconds float64) error {
	_, err := b.pool.Exec(ctx, `UPDATE bulk_runs SET run_seconds = run_seconds + $2 WHERE id = $1`, id, seconds)
	if err != nil {
		return fmt.Errorf("time of bulk run %d: %w", id, err)
	}
	return nil
}

// candidate is a transaction a batch looks at.
type candidate struct {
	t               payment.Transaction
	supportsPolling bool
	skip            string
}

// Batch implements bulk.Store. In one Postgres transaction: lock the run
// (a second worker of the same run waits), read its state and cursor, lock
// the next transactions the filter selects after the cursor, record an item
// for each (ON CONFLICT DO NOTHING: one already there was treated by an
// earlier attempt and is left alone), apply the action to the new items it
// applies to with their journal entries and events, and move the cursor and
// counts. A crash at any point rolls all of it back.
func (b *BulkRuns) Batch(ctx context.Context, r bulk.Run, f payment.ListFilter, limit int, at time.Time, resend bulk.Resender) (bulk.BatchResult, error) {
	var res bulk.BatchResult
	err := pgdb.InTx(ctx, b.pool, func(tx pgx.Tx) error {
		var state string
		var cursor int64
		if err := tx.QueryRow(ctx, `SELECT state, cursor_id FROM bulk_runs WHERE id = $1 FOR UPDATE`, r.ID).Scan(&state, &cursor); err != nil {
			return pgdb.Translate(err, entityBulkRun)
		}
		res.State = bulk.State(state)
		if res.State != bulk.StateRunning {
			return nil
		}
		c := listConditions(microseconds(f))
		c.add("id > ?", cursor)
		rows, err := tx.Query(ctx, `SELECT `+transactionColumns+`,
				COALESCE((SELECT p.supports_polling FROM providers p WHERE p.id = transactions.provider_id), false)
			FROM transactions`+c.where()+` ORDER BY id LIMIT `+strconv.Itoa(limit)+` FOR UPDATE`, c.args...)
		if err != nil {
			return fmt.Errorf("select batch of bulk run %d: %w", r.ID, err)
		}
		var cands []candidate
		for rows.Next() {
			var x candidate
			t, err := scanTransactionWith(rows, &x.supportsPolling)
			if err != nil {
				rows.Close()
				return fmt.Errorf("select batch of bulk run %d: %w", r.ID, err)
			}
			x.t = t
			x.skip = r.Action.Skip(bulk.Candidate{Status: t.Status, CallbacksCanceled: t.CallbacksCanceled,
				ProviderTID: t.ProviderTID, SupportsPolling: x.supportsPolling})
			cands = append(cands, x)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("select batch of bulk run %d: %w", r.ID, err)
		}
		res.Done = len(cands) < limit
		if len(cands) == 0 {
			return nil
		}
		// Outcomes: the skip reason, "applied", or "failed: …" for a resend
		// the callbacks service refused.
		ids := make([]int64, len(cands))
		outcomes := make([]string, len(cands))
		var lastError string
		for i, x := range cands {
			ids[i] = x.t.ID
			switch {
			case x.skip != "":
				outcomes[i] = "skipped:" + x.skip
			case r.Action == bulk.ResendCallbacks:
				// The key makes a repeated call a no-op: a batch rolled back
				// after this call sends nothing more when it runs again.
				err := resend(ctx, x.t.ID, fmt.Sprintf("bulk:%d:%d", r.ID, x.t.ID))
				switch k := apperr.KindOf(err); {
				case err == nil:
					outcomes[i] = "applied"
				case k == apperr.KindNotFound || k == apperr.KindFailedPrecondition || k == apperr.KindInvalid:
					outcomes[i] = "failed"
					lastError = fmt.Sprintf("transaction %d: %s", x.t.ID, publicMessage(err))
				default:
					return fmt.Errorf("resend callbacks of transaction %d: %w", x.t.ID, err)
				}
			default:
				outcomes[i] = "applied"
			}
		}
		fresh := map[int64]bool{}
		irows, err := tx.Query(ctx, `INSERT INTO bulk_run_items (run_id, transaction_id, outcome, at)
			SELECT $1, t, o, $4 FROM unnest($2::bigint[], $3::text[]) AS x(t, o)
			ON CONFLICT (run_id, transaction_id) DO NOTHING RETURNING transaction_id`, r.ID, ids, outcomes, at)
		if err != nil {
			return fmt.Errorf("record items of bulk run %d: %w", r.ID, err)
		}
		var id int64
		if _, err := pgx.ForEachRow(irows, []any{&id}, func() error { fresh[id] = true; return nil }); err != nil {
			return fmt.Errorf("record items of bulk run %d: %w", r.ID, err)
		}
		var apply []payment.Transaction
		for i, x := range cands {
			if !fresh[x.t.ID] {
				continue
			}
			res.Processed++
			switch outcomes[i] {
			case "applied":
				res.Applied++
				if r.Action != bulk.ResendCallbacks {
					apply = append(apply, x.t)
				}
			case "failed":
				res.Failed++
			default:
				res.Skipped++
			}
		}
		if err := applyBulk(ctx, tx, r, apply, at); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE bulk_runs SET cursor_id = $2, processed = processed + $3, applied = applied + $4,
				skipped = skipped + $5, failed = failed + $6, last_error = CASE WHEN $7 <> '' THEN $7 ELSE last_error END,
				updated_at = $8
			WHERE id = $1`, r.ID, ids[len(ids)-1], res.Processed, res.Applied, res.Skipped, res.Failed, lastError, at)
		if err != nil {
			return fmt.Errorf("progress of bulk run %d: %w", r.ID, err)
		}
		return nil
	})
	return res, err
}

func publicMessage(err error) string {
	if e := apperr.As(err); e != nil {
		return e.PublicMessage()
	}
	return err.Error()
}

// applyBulk applies r's action to ts (locked, each new to the run): one
// UPDATE for all of them, their journal entries in one statement, and
// their events in the outbox.
func applyBulk(ctx context.Context, tx pgx.Tx, r bulk.Run, ts []payment.Transaction, at time.Time) error {
	if len(ts) == 0 {
		return nil
	}
	ids := make([]int64, len(ts))
	created := make([]time.Time, len(ts))
	before := make(map[int64]payment.Transaction, len(ts))
	for i, t := range ts {
		ids[i], created[i] = t.ID, t.CreatedAt
		before[t.ID] = t
	}
	op := payment.Operator{UserID: r.CreatedBy, Username: r.CreatedByName, IP: fmt.Sprintf("bulk run %d", r.ID)}
	var set, msg, source string
	var stage payment.Stage
	switch r.Action {
	case bulk.RequeuePolling:
		set, source, stage = `next_poll_at = $3, poll_attempts = 0, updated_at = $3`, "bulk.RequeuePolling", payment.StagePolling
		msg = fmt.Sprintf("Polling queued by %s (bulk run %d).", r.CreatedByName, r.ID)
	case bulk.CancelCallbacks:
		set, source, stage = `callbacks_canceled = true, updated_at = $3`, "bulk.CancelCallbacks", payment.StageUIUpdate
		msg = fmt.Sprintf("Callback sending cancelled by %s (bulk run %d).", r.CreatedByName, r.ID)
	case bulk.MarkFailed:
		// As the row's Mark Failed (CancelTransaction): Cancelled, callbacks
		// stopped.
		msg = fmt.Sprintf("Transaction cancelled by %s (bulk run %d); callbacks stopped.", r.CreatedByName, r.ID)
		set, source, stage = `status = -1, status_message = $4, error_message = $4, next_poll_at = NULL, updated_at = $3,
			callbacks_canceled = true, status_version = status_version + CASE WHEN status <> -1 THEN 1 ELSE 0 END`,
			"bulk.MarkFailed", payment.StageUIUpdate
	default:
		return fmt.Errorf("bulk action %s applies no change here", r.Action)
	}
	args := []any{ids, created, at}
	if r.Action == bulk.MarkFailed {
		args = append(args, msg)
	}
	rows, err := tx.Query(ctx, `UPDATE transactions SET `+set+`
		WHERE (id, created_at) IN (SELECT * FROM unnest($1::bigint[], $2::timestamptz[])) RETURNING `+transactionColumns, args...)
	if err != nil {
		return fmt.Errorf("apply %s to %d transactions: %w", r.Action, len(ts), err)
	}
	var after []payment.Transaction
	for rows.Next() {
		t, err := scanTransaction(rows)
		if err != nil {
			rows.Close()
			return fmt.Errorf("apply %s: %w", r.Action, err)
		}
		after = append(after, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("apply %s: %w", r.Action, err)
	}
	var logs []payment.LogEntry
	var events []proto.Message
	for _, t := range after {
		prev := before[t.ID]
		e := payment.OperatorLogEntry(op, source, msg, map[string]any{"transactionStatus": int(prev.Status), "bulkRunId": r.ID,
			"reason": r.Reason})
		e.Stage, e.TransactionID, e.At = stage, t.ID, at
		logs = append(logs, e)
		if r.Action == bulk.MarkFailed {
			logs = append(logs, payment.LogEntry{Stage: payment.StageStatusChange, Level: payment.LevelWarning, TransactionID: t.ID, At: at,
				SourceContext: "payment.operator", TransactionUpdate: map[string]any{"from": int(prev.Status), "to": int(t.Status), "source": payment.SourceOperator},
				Message: fmt.Sprintf("Status changed from %s to %s (%s): %s", prev.Status, t.Status, payment.SourceOperator, msg)})
			events = append(events, &eventsv1.TransactionFinalized{Transaction: payment.State(t), PreviousStatus: int32(prev.Status),
				Source: payment.SourceOperator})
			continue
		}
		events = append(events, payment.SameStatusEvents(t)...)
	}
	if err := insertLogs(ctx, tx, logs); err != nil {
		return err
	}
	return publish(ctx, tx, events)
}
