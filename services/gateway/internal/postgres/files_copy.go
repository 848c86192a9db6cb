package postgres

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

var _ export.CSVCopier = (*Files)(nil)

// copyCell is how a Transactions column (export's transactionColumns) is
// copied: the SQL of the field COPY writes, and how exportfmt.CSVCopy turns
// that field into the encoder's cell. Postgres writes the plain columns
// (its share of the work stays close to a bare COPY's) and the Go side,
// on another core, adds the formula guard, cuts the times, names the
// codes.
type copyCell struct {
	sql string
	col exportfmt.CopyColumn
}

func textCell(col string) copyCell {
	return copyCell{sql: col, col: exportfmt.CopyColumn{Kind: exportfmt.CopyText}}
}

func numberCell(col string) copyCell {
	return copyCell{sql: col, col: exportfmt.CopyColumn{Kind: exportfmt.CopyAsIs}}
}

// timeCell is a Time cell: the session's TimeZone is the export's and its
// DateStyle ISO; the zero time.Time (an empty cell) is NULL.
func timeCell(col string) copyCell {
	return copyCell{sql: `NULLIF(` + col + `, timestamptz '0001-01-01 00:00:00+00')`, col: exportfmt.CopyColumn{Kind: exportfmt.CopyTime}}
}

// codeCell is a Text cell that export's own column makes from a code (the
// transaction as only that code sets it).
func codeCell(col, field string, set func(*payment.Transaction, int64)) copyCell {
	ti, _ := export.TypeOf(export.TypeTransactions)
	c, ok := ti.Column(field)
	if !ok {
		panic("postgres: no Transactions column " + field)
	}
	return copyCell{sql: col, col: exportfmt.CopyColumn{Kind: exportfmt.CopyMapped, Map: func(raw string) string {
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return raw
		}
		var tx payment.Transaction
		set(&tx, n)
		return c.Cell(export.Row{Transaction: tx}).Text
	}}}
}

// copyCells are the Transactions columns COPY can write. An Integer cell is
// the number; a Decimal cell the numeric(20,2) column's text, always a
// plain decimal with two places as money.Amount's String writes it, NULL
// (nothing) when unset.
var copyCells = map[string]copyCell{
	"id":                     numberCell(`id`),
	"transactionReferenceId": textCell(`reference_id`),
	"merchantName":           textCell(`merchant_name`),
	"providerName":           textCell(`provider_name`),
	"transactionType": codeCell(`transaction_type`, "transactionType", func(t *payment.Transaction, n int64) {
		t.Type = payment.Type(n)
	}),
	"amount":   numberCell(`amount`),
	"currency": textCell(`currency`),
	"transactionStatus": codeCell(`status`, "transactionStatus", func(t *payment.Transaction, n int64) {
		t.Status = payment.Status(n)
	}),
	// A Text cell: guarded when the count is negative.
	"callbackDeliveryStatus":   textCell(`callbacks_delivered || '/' || callbacks_total`),
	"createdUtc":               timeCell(`created_at`),
	"updatedUtc":               timeCell(`updated_at`),
	"nonce":                    textCell(`nonce`),
	"merchantClientId":         textCell(`merchant_client_id`),
	"providerTransactionId":    textCell(`provider_transaction_id`),
	"providerPayType":          textCell(`pay_type_name`),
	"transactionStatusMessage": textCell(`status_message`),
	"errorMessage":             textCell(`error_message`),
	"paymentMethodValue":       textCell(`payment_method_value`),
	"paymentIpAddress":         textCell(`payment_ip_address`),
	"destinationAmount":        numberCell(`destination_amount`),
	"destinationCurrency":      textCell(`destination_currency`),
	"appliedFeeAmount":         numberCell(`applied_fee_amount`),
	"appliedFeeCurrency":       textCell(`applied_fee_currency`),
	"pollingAttempts":          numberCell(`poll_attempts`),
}

// sqlString is s as an SQL string literal (s is this package's own text).
func sqlString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

var placeholder = regexp.MustCompile(`\$[0-9]+`)

// CopyTransactionsCSV implements export.CSVCopier: one COPY (SELECT <the
// fields' columns>) TO STDOUT WITH (FORMAT csv) on the read pool, in a
// read-only repeatable-read transaction whose TimeZone is the export's
// (and DateStyle ISO), into w, which rewrites each field (copyCells).
//
// COPY takes no parameters, so the filter's values never enter the SQL:
// the statement with its $n placeholders is described first (Postgres
// gives each one's type), each value is set with set_config (bound, local
// to the transaction) as its text in that type, and the COPY reads it back
// with current_setting('paygate.export_n')::type.
func (s *Files) CopyTransactionsCSV(ctx context.Context, f payment.ListFilter, fields []string, timeZone string, w *exportfmt.CSVCopy) error {
	exprs := make([]string, len(fields))
	cols := make([]exportfmt.CopyColumn, len(fields))
	for i, field := range fields {
		c, ok := copyCells[field]
		if !ok {
			return export.ErrNoCopy
		}
		exprs[i], cols[i] = c.sql, c.col
	}
	w.Columns(cols)
	c := listConditions(microseconds(f))
	noCopy := false
	err := pgx.BeginTxFunc(ctx, s.reads, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		if _, err := t.Exec(ctx, `SELECT set_config('TimeZone', $1, true), set_config('DateStyle', 'ISO, MDY', true)`, timeZone); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "22023" { // invalid_parameter_value: a zone Postgres does not know
				noCopy = true
			}
			return fmt.Errorf("set the export's time zone: %w", err)
		}
		where, err := bindSettings(ctx, t, c.where(), c.args)
		if err != nil {
			return err
		}
		sql := `COPY (SELECT ` + strings.Join(exprs, ", ") + ` FROM transactions` + where +
			` ORDER BY created_at DESC, id DESC) TO STDOUT WITH (FORMAT csv)`
		if _, err := t.Conn().PgConn().CopyTo(ctx, w, sql); err != nil {
			return fmt.Errorf("copy export rows: %w", err)
		}
		return nil
	})
	if noCopy {
		return export.ErrNoCopy
	}
	return err
}

// bindSettings returns the WHERE clause where (of transactions) with each
// $n replaced by its value cast to the parameter's type. A number, a time
// or a merchant scope's integer array becomes a literal that literal
// formats from the typed value (digits and punctuation only, whatever the
// caller sent), so that the planner sees it as it sees a bound parameter
// (it prunes the partitions of a date range and may sort the range in
// parallel, as for a bare COPY). Any other value (text) becomes the
// setting paygate.export_n, set here (local to t) to the value's text: no
// text a caller sent is ever part of the SQL.
func bindSettings(ctx context.Context, t pgx.Tx, where string, args []any) (string, error) {
	if len(args) == 0 {
		return where, nil
	}
	sd, err := t.Conn().PgConn().Prepare(ctx, "", `SELECT 1 FROM transactions`+where, nil)
	if err != nil {
		return "", fmt.Errorf("describe the export's statement: %w", err)
	}
	if len(sd.ParamOIDs) != len(args) {
		return "", fmt.Errorf("the export's statement has %d parameters, not %d", len(sd.ParamOIDs), len(args))
	}
	var types []string
	if err := t.QueryRow(ctx, `SELECT array_agg(format_type(o, NULL) ORDER BY i) FROM unnest($1::oid[]) WITH ORDINALITY AS p (o, i)`,
		sd.ParamOIDs).Scan(&types); err != nil {
		return "", fmt.Errorf("name the export's parameter types: %w", err)
	}
	m := t.Conn().TypeMap()
	names := make([]string, len(args))
	values := make([]*string, len(args))
	literals := make([]string, len(args))
	for i, a := range args {
		names[i] = "paygate.export_" + strconv.Itoa(i+1)
		if literals[i] = literal(a); literals[i] != "" {
			continue
		}
		b, err := m.Encode(sd.ParamOIDs[i], pgtype.TextFormatCode, a, nil)
		if err != nil {
			return "", fmt.Errorf("encode the export's parameter %d: %w", i+1, err)
		}
		if b != nil {
			v := string(b)
			values[i] = &v
		}
	}
	if _, err := t.Exec(ctx, `SELECT set_config(n, v, true) FROM unnest($1::text[], $2::text[]) AS p (n, v) WHERE v IS NOT NULL`,
		names, values); err != nil {
		return "", fmt.Errorf("set the export's parameters: %w", err)
	}
	var bad error
	out := placeholder.ReplaceAllStringFunc(where, func(p string) string {
		n, _ := strconv.Atoi(p[1:])
		if n < 1 || n > len(args) {
			bad = fmt.Errorf("the export's statement names %s", p)
			return p
		}
		switch {
		case literals[n-1] != "":
			return `'` + literals[n-1] + `'::` + types[n-1]
		case values[n-1] == nil:
			return `NULL::` + types[n-1]
		}
		return `current_setting(` + sqlString(names[n-1]) + `)::` + types[n-1]
	})
	return out, bad
}

// literal is a number's, a time's or an integer array's text for an SQL
// literal, made of digits, '-', ':', '.', ' ', 'Z', '{', ',' and '}' only;
// "" for any other value.
func literal(a any) string {
	switch v := a.(type) {
	case int16:
		return strconv.FormatInt(int64(v), 10)
	case int32:
		return strconv.FormatInt(int64(v), 10)
	case int64:
		return strconv.FormatInt(v, 10)
	case int:
		return strconv.Itoa(v)
	case []int32:
		if v == nil {
			return ""
		}
		b := []byte{'{'}
		for i, n := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		return string(append(b, '}'))
	case time.Time:
		if y := v.UTC().Year(); y < 1 || y > 9999 {
			return ""
		}
		return v.UTC().Format("2006-01-02 15:04:05.999999Z")
	}
	return ""
}
