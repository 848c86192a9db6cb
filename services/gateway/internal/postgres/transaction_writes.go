package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Create implements payment.Store. Concurrent creations are written
// together (createBatch).
func (p *Payments) Create(ctx context.Context, t payment.Transaction, logs []payment.LogEntry, events func(payment.Transaction) []proto.Message) (payment.Transaction, error) {
	return p.creates.do(ctx, createIn{t: t, logs: logs, events: events, view: viewVersion(ctx)})
}

// createOne writes one creation in a Postgres transaction of its own.
func (p *Payments) createOne(ctx context.Context, in createIn) (payment.Transaction, error) {
	t, logs, events := in.t, slices.Clone(in.logs), in.events
	var out payment.Transaction
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		if in.view != 0 {
			var version int64
			if err := tx.QueryRow(ctx, `SELECT version FROM config_version`).Scan(&version); err != nil {
				return fmt.Errorf("read configuration version: %w", err)
			}
			if in.view < version {
				return payment.ErrStaleView
			}
		}
		accountData, err := accountDataDoc(t.AccountData)
		if err != nil {
			return err
		}
		var feeID, feeValue, feeAmount any
		if t.Fee.ID != 0 {
			feeID, feeValue, feeAmount = t.Fee.ID, t.Fee.Value.String(), t.Fee.Amount.String()
		}
		out, err = scanTransaction(tx.QueryRow(ctx, `
			INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
				provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
				amount, currency, destination_amount, destination_currency, provider_tags, account_data,
				payment_ip_address, user_agent, applied_fee_id, applied_fee_type, applied_fee_value, applied_fee_amount,
				applied_fee_currency, applied_fee_payer, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
				$22, $23, $24, $25, $26, $27, $28, $28)
			RETURNING `+transactionColumns,
			t.ReferenceID, t.MerchantID, t.CollabID, t.ProviderID, t.PayTypeID, t.MerchantName, t.ProviderName,
			t.PayTypeName, t.Nonce, t.MerchantClientID, t.Type, t.Status, t.StatusMessage, t.Amount.String(), t.Currency,
			t.DestinationAmount.String(), t.DestinationCurrency, t.ProviderTags, accountData, t.PaymentIP, t.UserAgent,
			feeID, t.Fee.Type, feeValue, feeAmount, t.Fee.Currency, t.Fee.Payer, t.CreatedAt))
		if err != nil {
			return translateTransactionWrite(fmt.Errorf("insert transaction: %w", err))
		}
		for i := range logs {
			logs[i].TransactionID = out.ID
			if logs[i].At.IsZero() {
				logs[i].At = t.CreatedAt
			}
		}
		if err := insertLogs(ctx, tx, logs); err != nil {
			return err
		}
		return publish(ctx, tx, events(out))
	})
	return out, err
}

func translateTransactionWrite(err error) error {
	if code, constraint, ok := pgdb.ConstraintViolation(err); ok && code == "23505" && nonceNames[constraint] {
		return apperr.New(apperr.KindConflict, err, "The nonce was already used by this merchant.")
	}
	return pgdb.Translate(err, entityTransaction)
}

func publish(ctx context.Context, tx pgx.Tx, events []proto.Message) error {
	for _, ev := range events {
		if _, err := bus.Enqueue(ctx, tx, bus.Subject(ev), ev); err != nil {
			return fmt.Errorf("enqueue %s: %w", proto.MessageName(ev), err)
		}
	}
	return nil
}

// ChangeStatus implements payment.Store. Concurrent changes with Seen are
// written together (changeBatch).
func (p *Payments) ChangeStatus(ctx context.Context, c payment.StatusChange) (payment.Transaction, error) {
	if c.Seen == nil {
		return p.changeOne(ctx, c)
	}
	return p.changes.do(ctx, c)
}

// changeOne writes one status change in a Postgres transaction of its own.
func (p *Payments) changeOne(ctx context.Context, c payment.StatusChange) (payment.Transaction, error) {
	var out payment.Transaction
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		var providerData []byte
		if c.ProviderData != nil {
			var err error
			if providerData, err = json.Marshal(c.ProviderData); err != nil {
				return fmt.Errorf("provider data: %w", err)
			}
		}
		at, err := createdAt(ctx, tx, c.ID)
		if err != nil {
			return err
		}
		out, err = scanTransaction(tx.QueryRow(ctx, `
			UPDATE transactions SET status = $3, status_message = $4,
				error_message = CASE WHEN $5 <> '' THEN $5 ELSE error_message END,
				provider_transaction_id = COALESCE(NULLIF($6, ''), provider_transaction_id),
				provider_data = COALESCE($7::jsonb, provider_data), next_poll_at = $8, updated_at = $9,
				callbacks_canceled = callbacks_canceled OR $10,
				recovery_attempts = CASE WHEN $3::smallint = 1 THEN 0 ELSE recovery_attempts END,
				status_version = status_version + CASE WHEN status <> $3::smallint THEN 1 ELSE 0 END
			WHERE id = $1 AND created_at = $11 AND status = $2
			RETURNING `+transactionColumns,
			c.ID, c.From, c.To, c.Message, c.ErrorMessage, c.ProviderTID, providerData, c.NextPollAt, c.At, c.CancelCallbacks, at))
		if errors.Is(err, pgx.ErrNoRows) {
			var cur int16
			if err := tx.QueryRow(ctx, `SELECT status FROM transactions WHERE id = $1 AND created_at = $2`, c.ID, at).Scan(&cur); err != nil {
				return pgdb.Translate(err, entityTransaction)
			}
			return apperr.Conflict("Transaction with id %d status changed (it is now %s). Reload and try again.", c.ID, payment.Status(cur))
		}
		if err != nil {
			return fmt.Errorf("update transaction %d: %w", c.ID, err)
		}
		if err := insertLogs(ctx, tx, c.Logs); err != nil {
			return err
		}
		if c.Events != nil {
			return publish(ctx, tx, c.Events(out))
		}
		return nil
	})
	return out, err
}

// AppendLogs implements payment.Store. Concurrent calls (a provider's
// webhooks for transactions already final, polls that change nothing) are
// written together, as one statement; the entries of one call are written
// all or none.
func (p *Payments) AppendLogs(ctx context.Context, logs ...payment.LogEntry) error {
	if len(logs) == 0 {
		return nil
	}
	_, err := p.appends.do(ctx, logs)
	return err
}

// appendBatch writes the journal entries of items in one statement, its own
// transaction. When that fails (an entry of a transaction that does not
// exist), each item's entries are written on their own, so that only the
// faulty call fails.
func (p *Payments) appendBatch(ctx context.Context, items []*groupItem[[]payment.LogEntry, struct{}]) {
	if len(items) > 1 {
		var all []payment.LogEntry
		for _, it := range items {
			all = append(all, it.in...)
		}
		if err := insertLogs(ctx, p.pool, all); err == nil {
			return
		}
		p.fallbacks.Add(1)
	}
	for _, it := range items {
		it.err = insertLogs(ctx, p.pool, it.in)
	}
}

func insertLogs(ctx context.Context, q pgdb.Querier, logs []payment.LogEntry) error {
	if len(logs) == 0 {
		return nil
	}
	args, err := logArgs(logs)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, logBatchSQL, args...); err != nil {
		return fmt.Errorf("insert %d log entries of transaction %d: %w", len(logs), logs[0].TransactionID, err)
	}
	return nil
}

// ClaimPolls implements payment.Store.
func (p *Payments) ClaimPolls(ctx context.Context, now time.Time, limit int, backoff func(int32) time.Duration, maxAttempts int32) ([]payment.Transaction, error) {
	var out []payment.Transaction
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+transactionColumns+` FROM transactions
			WHERE next_poll_at <= $1 ORDER BY next_poll_at LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
		if err != nil {
			return fmt.Errorf("select due polls: %w", err)
		}
		ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.Transaction, error) { return scanTransaction(row) })
		if err != nil {
			return fmt.Errorf("read due polls: %w", err)
		}
		for i := range ts {
			t := &ts[i]
			t.PollAttempts++
			var next *time.Time
			if t.PollAttempts < maxAttempts && !t.Status.Final() {
				n := now.Add(backoff(t.PollAttempts + 1))
				next = &n
			}
			if _, err := tx.Exec(ctx, `UPDATE transactions SET poll_attempts = $2, next_poll_at = $3 WHERE id = $1 AND created_at = $4`,
				t.ID, t.PollAttempts, next, t.CreatedAt); err != nil {
				return fmt.Errorf("schedule poll of %d: %w", t.ID, err)
			}
			t.NextPollAt = next
		}
		out = ts
		return nil
	})
	return out, err
}
