package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Frauds is the Postgres implementation of fraud.Store and fraud.Detector
// (migration 0019).
type Frauds struct {
	pool *pgxpool.Pool
}

var (
	_ fraud.Store    = (*Frauds)(nil)
	_ fraud.Detector = (*Frauds)(nil)
)

// NewFrauds returns the fraud store on pool.
func NewFrauds(pool *pgxpool.Pool) *Frauds { return &Frauds{pool: pool} }

const entityFraud = "The fraud"

const fraudColumns = `id, reference_id, rule, merchant_id, client_id, merchant_client_id, level, reason,
	transaction_count, detected_at, updated_at, review_status, review_completed_at, reviewed_by, notes, callbacks_canceled`

func scanFraud(row pgx.Row) (fraud.Fraud, error) {
	var f fraud.Fraud
	err := row.Scan(&f.ID, &f.ReferenceID, &f.Rule, &f.MerchantID, &f.ClientID, &f.MerchantClientID, &f.Level, &f.Reason,
		&f.TransactionCount, &f.DetectedAt, &f.UpdatedAt, &f.ReviewStatus, &f.ReviewCompletedAt, &f.ReviewedBy, &f.Notes,
		&f.CallbacksCanceled)
	f.DetectedAt, f.UpdatedAt = f.DetectedAt.UTC(), f.UpdatedAt.UTC()
	if f.ReviewCompletedAt != nil {
		at := f.ReviewCompletedAt.UTC()
		f.ReviewCompletedAt = &at
	}
	return f, err
}

// fraudConditions is the WHERE clause of a list query. Every condition
// names a column of one of 0019's indexes.
func fraudConditions(q fraud.Query) *conditions {
	c := &conditions{}
	if !q.Scope.All {
		ids := q.Scope.MerchantIDs
		if ids == nil {
			ids = []int32{}
		}
		c.add(`merchant_id = ANY(?::integer[])`, ids)
	}
	if q.MerchantID != 0 {
		c.add(`merchant_id = ?`, q.MerchantID)
	}
	if q.Status != nil {
		c.add(`review_status = ?`, int16(*q.Status))
	}
	if q.ClientID != "" {
		c.add(`client_id = ?`, q.ClientID)
	}
	if q.MerchantClientID != "" {
		c.add(`merchant_client_id = ?`, q.MerchantClientID)
	}
	if q.ReferenceID != "" {
		c.add(`reference_id = ?`, q.ReferenceID)
	}
	if q.TransactionID != 0 {
		c.add(`id IN (SELECT fraud_id FROM fraud_transactions WHERE transaction_id = ?)`, q.TransactionID)
	}
	if !q.From.IsZero() {
		c.add(`detected_at >= ?`, q.From)
	}
	if !q.To.IsZero() {
		c.add(`detected_at <= ?`, q.To)
	}
	return c
}

// List implements fraud.Store: the count stops at fraud.CountLimit, the
// page is an offset page of the (detected_at DESC, id DESC) order, and the
// page's transactions are read in one query.
func (s *Frauds) List(ctx context.Context, q fraud.Query) (fraud.Page, error) {
	c := fraudConditions(q)
	page := fraud.Page{Frauds: []fraud.Fraud{}}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		n := len(c.args)
		if err := t.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM client_frauds`+c.where()+
			fmt.Sprintf(` LIMIT $%d) x`, n+1), append(c.args, fraud.CountLimit)...).Scan(&page.TotalCount); err != nil {
			return fmt.Errorf("count frauds: %w", err)
		}
		rows, err := t.Query(ctx, `SELECT `+fraudColumns+` FROM client_frauds`+c.where()+
			fmt.Sprintf(` ORDER BY detected_at DESC, id DESC LIMIT $%d OFFSET $%d`, n+1, n+2), append(c.args, q.Limit, q.Offset)...)
		if err != nil {
			return fmt.Errorf("select frauds: %w", err)
		}
		page.Frauds, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (fraud.Fraud, error) { return scanFraud(row) })
		if err != nil {
			return fmt.Errorf("read frauds: %w", err)
		}
		return attachTransactions(ctx, t, page.Frauds)
	})
	return page, err
}

// attachTransactions reads the first fraud.MaxListedTransactions
// transactions of each of frauds, in one query.
func attachTransactions(ctx context.Context, q pgdb.Querier, frauds []fraud.Fraud) error {
	if len(frauds) == 0 {
		return nil
	}
	ids := make([]int64, len(frauds))
	at := make(map[int64]int, len(frauds))
	for i, f := range frauds {
		ids[i], at[f.ID] = f.ID, i
		frauds[i].Transactions = []fraud.Transaction{}
	}
	rows, err := q.Query(ctx, `
		SELECT f.id, t.id, t.reference_id, t.amount::text, t.currency, t.transaction_type, t.status, t.created_at,
			t.provider_name, t.merchant_name, t.merchant_id, t.callbacks_delivered, t.callbacks_total, t.callbacks_canceled
		FROM unnest($1::bigint[]) AS f(id)
		CROSS JOIN LATERAL (
			SELECT x.* FROM fraud_transactions ft JOIN transaction_keys k ON k.id = ft.transaction_id
			JOIN transactions x ON x.id = k.id AND x.created_at = k.created_at
			WHERE ft.fraud_id = f.id ORDER BY ft.transaction_id LIMIT $2
		) t
		ORDER BY f.id, t.id`, ids, fraud.MaxListedTransactions)
	if err != nil {
		return fmt.Errorf("select the transactions of %d frauds: %w", len(ids), err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var x fraud.Transaction
		if err := rows.Scan(&id, &x.ID, &x.ReferenceID, &x.Amount, &x.Currency, &x.Type, &x.Status, &x.CreatedAt,
			&x.ProviderName, &x.MerchantName, &x.MerchantID, &x.CallbacksSent, &x.CallbacksTotal, &x.CallbacksCanceled); err != nil {
			return fmt.Errorf("read the transactions of frauds: %w", err)
		}
		x.CreatedAt = x.CreatedAt.UTC()
		i := at[id]
		frauds[i].Transactions = append(frauds[i].Transactions, x)
	}
	return rows.Err()
}

// Review implements fraud.Store. Stopping callbacks updates every
// transaction of the fraud not stopped yet in one statement, with a journal
// entry and a same-status event each (the callbacks service learns from
// those).
func (s *Frauds) Review(ctx context.Context, r fraud.Review, actor activity.Actor, at time.Time, scope merchant.Scope,
	check func(before fraud.Fraud) error, then func(ctx context.Context, j fraud.Journal, rv fraud.Reviewed) error) (fraud.Fraud, error) {
	var out fraud.Fraud
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		before, err := scanFraud(t.QueryRow(ctx, `SELECT `+fraudColumns+` FROM client_frauds WHERE id = $1 FOR UPDATE`, r.ID))
		if errors.Is(err, pgx.ErrNoRows) || err == nil && !scope.Includes(before.MerchantID) {
			return apperr.NotFound("Fraud %d was not found.", r.ID)
		}
		if err != nil {
			return fmt.Errorf("select fraud %d: %w", r.ID, err)
		}
		if err := check(before); err != nil {
			return err
		}
		after, err := scanFraud(t.QueryRow(ctx, `
			UPDATE client_frauds SET review_status = $2, notes = $3, reviewed_by = $4, reviewed_by_id = $5,
				review_completed_at = $6, updated_at = $6, callbacks_canceled = callbacks_canceled OR $7
			WHERE id = $1 RETURNING `+fraudColumns,
			r.ID, int16(r.Status), r.Notes, actor.Username, actor.UserID, at, r.CancelCallbacks))
		if err != nil {
			return fmt.Errorf("update fraud %d: %w", r.ID, err)
		}
		rv := fraud.Reviewed{Before: before, After: after, CanceledTransactions: []int64{}}
		if r.CancelCallbacks {
			if rv.CanceledTransactions, err = cancelFraudCallbacks(ctx, t, after, actor, at); err != nil {
				return err
			}
		}
		j := &tx{t: t}
		if err := then(ctx, j, rv); err != nil {
			return err
		}
		fs := []fraud.Fraud{after}
		if err := attachTransactions(ctx, t, fs); err != nil {
			return err
		}
		out = fs[0]
		return nil
	})
	return out, err
}

// cancelFraudCallbacks stops the callbacks of f's transactions that still
// send them and returns their ids.
func cancelFraudCallbacks(ctx context.Context, t pgx.Tx, f fraud.Fraud, actor activity.Actor, at time.Time) ([]int64, error) {
	rows, err := t.Query(ctx, `
		UPDATE transactions SET callbacks_canceled = true, updated_at = $2
		FROM fraud_transactions ft
		WHERE ft.fraud_id = $1 AND transactions.id = ft.transaction_id
			AND transactions.created_at = (SELECT k.created_at FROM transaction_keys k WHERE k.id = ft.transaction_id)
			AND NOT transactions.callbacks_canceled
		RETURNING `+transactionColumns, f.ID, at)
	if err != nil {
		return nil, fmt.Errorf("stop the callbacks of fraud %d: %w", f.ID, err)
	}
	txs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.Transaction, error) { return scanTransaction(row) })
	if err != nil {
		return nil, fmt.Errorf("stop the callbacks of fraud %d: %w", f.ID, err)
	}
	op := payment.Operator{UserID: actor.UserID, Username: actor.Username, IP: actor.IP, UserAgent: actor.UserAgent, Scope: actor.Scope}
	msg := fmt.Sprintf("Callback sending cancelled by %s (fraud review %s).", actor.Username, f.ReferenceID)
	ids := make([]int64, 0, len(txs))
	logs := make([]payment.LogEntry, 0, len(txs))
	for _, x := range txs {
		e := payment.OperatorLogEntry(op, "fraud.Review", msg, map[string]any{"fraudId": f.ID, "fraudReferenceId": f.ReferenceID})
		e.TransactionID, e.At = x.ID, at
		logs = append(logs, e)
		ids = append(ids, x.ID)
		if err := publish(ctx, t, payment.SameStatusEvents(x)); err != nil {
			return nil, err
		}
	}
	if err := insertLogs(ctx, t, logs); err != nil {
		return nil, err
	}
	return ids, nil
}
