package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// casUpdate runs set on a transaction whose status is still seen, then
// writes logs and events, in one Postgres transaction.
func (p *Payments) casUpdate(ctx context.Context, id int64, seen payment.Status, set string, setArgs []any, logs []payment.LogEntry, events func(payment.Transaction) []proto.Message) (payment.Transaction, error) {
	var out payment.Transaction
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		at, err := createdAt(ctx, tx, id)
		if err != nil {
			return err
		}
		args := append([]any{id, seen}, setArgs...)
		out, err = scanTransaction(tx.QueryRow(ctx, `UPDATE transactions SET `+set+`
			WHERE id = $1 AND status = $2 AND created_at = $`+strconv.Itoa(len(args)+1)+` RETURNING `+transactionColumns,
			append(args, at)...))
		if errors.Is(err, pgx.ErrNoRows) {
			var cur int16
			if err := tx.QueryRow(ctx, `SELECT status FROM transactions WHERE id = $1 AND created_at = $2`, id, at).Scan(&cur); err != nil {
				return pgdb.Translate(err, entityTransaction)
			}
			return apperr.Conflict("Transaction with id %d status changed (it is now %s). Reload and try again.", id, payment.Status(cur))
		}
		if err != nil {
			return fmt.Errorf("update transaction %d: %w", id, err)
		}
		if err := insertLogs(ctx, tx, logs); err != nil {
			return err
		}
		if events != nil {
			return publish(ctx, tx, events(out))
		}
		return nil
	})
	return out, err
}

// CancelCallbacks implements payment.Store.
func (p *Payments) CancelCallbacks(ctx context.Context, id int64, seen payment.Status, at time.Time, logs []payment.LogEntry, events func(payment.Transaction) []proto.Message) (payment.Transaction, error) {
	return p.casUpdate(ctx, id, seen, `callbacks_canceled = true, updated_at = $3`, []any{at}, logs, events)
}

// SchedulePoll implements payment.Store.
func (p *Payments) SchedulePoll(ctx context.Context, id int64, seen payment.Status, at time.Time, logs []payment.LogEntry, events func(payment.Transaction) []proto.Message) (payment.Transaction, error) {
	return p.casUpdate(ctx, id, seen, `next_poll_at = $3, poll_attempts = 0, updated_at = $3`, []any{at}, logs, events)
}
