package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// ClaimRecoveries implements payment.Store. Rows are locked with FOR UPDATE
// SKIP LOCKED, so replicas sweeping at once take different rows; the attempt
// counter and the journal entry commit together before any provider call.
func (p *Payments) ClaimRecoveries(ctx context.Context, before time.Time, limit int, maxAttempts int32,
	entry func(t payment.Transaction, attempt int32) payment.LogEntry) ([]payment.Recovery, error) {
	var out []payment.Recovery
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `
			UPDATE transactions t SET recovery_attempts = t.recovery_attempts + 1
			FROM (SELECT id, created_at FROM transactions
				WHERE status = $1 AND updated_at <= $2 AND recovery_attempts < $3
				ORDER BY updated_at, id LIMIT $4 FOR UPDATE SKIP LOCKED) due
			WHERE t.id = due.id AND t.created_at = due.created_at
			RETURNING t.id, t.created_at, t.recovery_attempts`, payment.StatusNotConfirmed, before, maxAttempts, limit)
		if err != nil {
			return fmt.Errorf("claim recoveries: %w", err)
		}
		type claim struct {
			id      int64
			at      time.Time
			attempt int32
		}
		claims, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (claim, error) {
			var c claim
			return c, row.Scan(&c.id, &c.at, &c.attempt)
		})
		if err != nil {
			return fmt.Errorf("read claimed recoveries: %w", err)
		}
		out = make([]payment.Recovery, 0, len(claims))
		logs := make([]payment.LogEntry, 0, len(claims))
		for _, c := range claims {
			t, err := p.one(ctx, tx, "WHERE id = $1 AND created_at = $2", c.id, c.at)
			if err != nil {
				return err
			}
			out = append(out, payment.Recovery{Transaction: t, Attempt: c.attempt})
			e := entry(t, c.attempt)
			e.TransactionID = t.ID
			logs = append(logs, e)
		}
		return insertLogs(ctx, tx, logs)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
