package postgres

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/payment"
)

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
		) x JOIN transactions ON transactions.id = x.transaction_id
			AND transactions.created_at = (SELECT k.created_at FROM transaction_keys k WHERE k.id = x.transaction_id)` + c.where() + `
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
