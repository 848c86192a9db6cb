package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/collab"
	"github.com/paygate/paygate/services/gateway/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// conditions builds a WHERE clause with numbered arguments.
type conditions struct {
	parts []string
	args  []any
}

// add appends a condition; each "?" in cond is the next argument.
func (c *conditions) add(cond string, args ...any) {
	for _, a := range args {
		c.args = append(c.args, a)
		cond = strings.Replace(cond, "?", "$"+strconv.Itoa(len(c.args)), 1)
	}
	c.parts = append(c.parts, cond)
}

func (c *conditions) where() string {
	if len(c.parts) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(c.parts, " AND ")
}

// listConditions is the WHERE clause of a list filter, merchant scope
// included. Every condition names a column of the range indexes (collab,
// merchant or created_at) or of an exact-match index (migration 0006).
func listConditions(f payment.ListFilter) conditions {
	var c conditions
	if !f.Scope.All {
		c.add("merchant_id = ANY(?::integer[])", f.Scope.MerchantIDs)
	}
	if f.CollabID != 0 {
		c.add("collab_id = ?", f.CollabID)
	}
	if f.MerchantID != 0 {
		c.add("merchant_id = ?", f.MerchantID)
	}
	switch {
	case f.ID != 0:
		c.add("id = ?", f.ID)
		return c
	case f.Reference != "":
		c.add("reference_id = ?", f.Reference)
		return c
	}
	if f.Type != 0 {
		c.add("transaction_type = ?", int16(f.Type))
	}
	if len(f.Statuses) > 0 {
		st := make([]int16, len(f.Statuses))
		for i, s := range f.Statuses {
			st[i] = int16(s)
		}
		c.add("status = ANY(?::smallint[])", st)
	}
	if f.ProviderTID != "" {
		c.add("provider_transaction_id = ?", f.ProviderTID)
	}
	if f.MerchantCID != "" {
		c.add("merchant_client_id = ?", f.MerchantCID)
	}
	if f.Nonce != "" {
		c.add("nonce = ?", f.Nonce)
	}
	if f.From != nil {
		c.add("created_at >= ?", *f.From)
	}
	if f.To != nil {
		c.add("created_at <= ?", *f.To)
	}
	if f.MinAmount != nil {
		c.add("amount >= ?::numeric", f.MinAmount.String())
	}
	if f.MaxAmount != nil {
		c.add("amount <= ?::numeric", f.MaxAmount.String())
	}
	if f.Currency != "" {
		c.add("currency = ?", f.Currency)
	}
	if f.PaymentMethodValue != "" {
		c.add("payment_method_value = ?", f.PaymentMethodValue)
	}
	if f.PaymentMethodType != 0 {
		c.add("payment_method_type = ?", f.PaymentMethodType)
	}
	if f.PaymentIP != "" {
		c.add("payment_ip_address = ?", f.PaymentIP)
	}
	return c
}

// List implements payment.Store. The count and the totals come from one
// grouped scan over the same conditions as the page (one round trip, a
// batch of two statements).
func (p *Payments) List(ctx context.Context, f payment.ListFilter) (payment.ListPage, error) {
	c := listConditions(f)
	page := payment.ListPage{Transactions: []payment.Transaction{}, Totals: map[string]collab.Amount{}}
	n := len(c.args)
	args := append(append([]any{}, c.args...), f.Take, (f.Page-1)*f.Take)
	b := &pgx.Batch{}
	b.Queue(`SELECT currency, count(*), sum(amount)::text FROM transactions`+c.where()+` GROUP BY currency`, c.args...)
	b.Queue(`SELECT `+transactionColumns+` FROM transactions`+c.where()+
		fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT $%d OFFSET $%d`, n+1, n+2), args...)
	res := p.pool.SendBatch(ctx, b)
	defer res.Close()
	rows, err := res.Query()
	if err != nil {
		return page, fmt.Errorf("count transactions: %w", err)
	}
	for rows.Next() {
		var cur, sum string
		var count int
		if err := rows.Scan(&cur, &count, &sum); err != nil {
			rows.Close()
			return page, fmt.Errorf("count transactions: %w", err)
		}
		page.TotalCount += count
		if f.IncludeTotals {
			a, err := amountOf(&sum)
			if err != nil {
				rows.Close()
				return page, err
			}
			page.Totals[cur] = a
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("count transactions: %w", err)
	}
	rows, err = res.Query()
	if err != nil {
		return page, fmt.Errorf("select transactions: %w", err)
	}
	ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.Transaction, error) { return scanTransaction(row) })
	if err != nil {
		return page, fmt.Errorf("select transactions: %w", err)
	}
	page.Transactions = append(page.Transactions, ts...)
	return page, nil
}

// extraRow scans the transaction columns and then extra destinations.
type extraRow struct {
	pgx.Row
	extra []any
}

func (r extraRow) Scan(dest ...any) error { return r.Row.Scan(append(dest, r.extra...)...) }

// likePattern is an ILIKE pattern matching s anywhere, s taken literally.
func likePattern(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(s) + "%"
}

// SearchLogs implements payment.Store. The window is read through
// transaction_logs_at_idx; each entry's JSON payloads are prefiltered with
// ILIKE on their text (the domain then finds the matching key).
func (p *Payments) SearchLogs(ctx context.Context, f payment.LogSearch) ([]payment.LogPayload, error) {
	var c conditions
	c.add("transaction_type = ?", int16(f.Type))
	if !f.Scope.All {
		c.add("merchant_id = ANY(?::integer[])", f.Scope.MerchantIDs)
	}
	if f.Amount != nil {
		c.add("amount = ?::numeric", f.Amount.String())
	}
	if f.Currency != "" {
		c.add("currency = ?", f.Currency)
	}
	if f.MerchantClientID != "" {
		c.add("merchant_client_id = ?", f.MerchantClientID)
	}
	n := len(c.args)
	args := append(append([]any{}, c.args...), f.From, f.To, likePattern(f.Term), f.Limit)
	q := `SELECT ` + transactionColumns + `, x.stage, x.col, x.val::text
		FROM (
			SELECT l.transaction_id, l.id AS log_id, l.stage, v.col, v.val
			FROM transaction_logs l
			CROSS JOIN LATERAL (VALUES ('transaction_update', l.transaction_update), ('content', l.content),
				('headers', l.headers), ('query_params', l.query_params), ('webhook_request', l.webhook_request),
				('webhook_response', l.webhook_response), ('webhook_headers', l.webhook_headers)) AS v(col, val)
			WHERE l.at >= $` + strconv.Itoa(n+1) + ` AND l.at <= $` + strconv.Itoa(n+2) + `
				AND v.val IS NOT NULL AND v.val::text ILIKE $` + strconv.Itoa(n+3) + `
		) x JOIN transactions ON transactions.id = x.transaction_id` + c.where() + `
		ORDER BY x.log_id LIMIT $` + strconv.Itoa(n+4)
	rows, err := p.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("search logs: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.LogPayload, error) {
		var lp payment.LogPayload
		var raw string
		t, err := scanTransaction(extraRow{Row: row, extra: []any{&lp.Stage, &lp.Column, &raw}})
		if err != nil {
			return lp, err
		}
		lp.Transaction = t
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		dec.UseNumber()
		if err := dec.Decode(&lp.Value); err != nil {
			return lp, fmt.Errorf("log payload of transaction %d: %w", t.ID, err)
		}
		return lp, nil
	})
}

// casUpdate runs set on a transaction whose status is still seen, then
// writes logs and events, in one Postgres transaction.
func (p *Payments) casUpdate(ctx context.Context, id int64, seen payment.Status, set string, setArgs []any, logs []payment.LogEntry, events func(payment.Transaction) []proto.Message) (payment.Transaction, error) {
	var out payment.Transaction
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		args := append([]any{id, seen}, setArgs...)
		var err error
		out, err = scanTransaction(tx.QueryRow(ctx, `UPDATE transactions SET `+set+`
			WHERE id = $1 AND status = $2 RETURNING `+transactionColumns, args...))
		if errors.Is(err, pgx.ErrNoRows) {
			var cur int16
			if err := tx.QueryRow(ctx, `SELECT status FROM transactions WHERE id = $1`, id).Scan(&cur); err != nil {
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
