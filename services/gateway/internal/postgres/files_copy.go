package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

var _ export.CSVCopier = (*Files)(nil)

// csvText is the SQL of a Text cell of column expression x as the CSV
// encoder writes it, for COPY … WITH (FORMAT csv) to quote: NULL (written
// as nothing) for an empty or NULL value, a single quote before a value
// whose first byte is one of exportfmt.FormulaStarts (ascii() is the first
// character's code point, never one of those ASCII codes for a non-ASCII
// character).
func csvText(x string) string {
	return `CASE WHEN ` + x + ` = '' THEN NULL WHEN ascii(` + x + `) IN (` + formulaCodes + `) THEN '''' || ` + x +
		` ELSE ` + x + ` END`
}

var formulaCodes = func() string {
	codes := make([]string, len(exportfmt.FormulaStarts))
	for i := range len(exportfmt.FormulaStarts) {
		codes[i] = strconv.Itoa(int(exportfmt.FormulaStarts[i]))
	}
	return strings.Join(codes, ", ")
}()

// csvTime is the SQL of a Time cell of a timestamptz column: the session's
// TimeZone is the export's, and the zero time.Time is an empty cell.
// to_char drops the fraction of a second as the encoder does.
func csvTime(col string) string {
	return `CASE WHEN ` + col + ` = timestamptz '0001-01-01 00:00:00+00' THEN NULL ELSE to_char(` + col +
		`, 'YYYY-MM-DD HH24:MI:SS') END`
}

// sqlString is s as an SQL string literal (s is this package's own text).
func sqlString(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// csvStatus is the Status cell: payment.Status.String of every known code.
var csvStatus = func() string {
	var b strings.Builder
	b.WriteString(`CASE status`)
	for s := -1 << 15; s < 1<<15; s++ {
		if st := payment.Status(s); st.Known() {
			fmt.Fprintf(&b, ` WHEN %d THEN %s`, s, sqlString(st.String()))
		}
	}
	// "Status -7" starts with a letter: never guarded, never quoted.
	b.WriteString(` ELSE 'Status ' || status END`)
	return b.String()
}()

// csvCells are the SQL of each Transactions column (export's
// transactionColumns) formatted as the CSV encoder writes its cell. An
// Integer cell is the number; a Decimal cell the numeric(20,2) column's
// text, always a plain decimal with two places (money.Amount's String),
// NULL (nothing) when unset; Text and Time cells as csvText and csvTime.
var csvCells = map[string]string{
	"id":                     `id`,
	"transactionReferenceId": csvText(`reference_id`),
	"merchantName":           csvText(`merchant_name`),
	"providerName":           csvText(`provider_name`),
	"transactionType":        `CASE WHEN transaction_type = ` + strconv.Itoa(int(payment.TypeWithdrawal)) + ` THEN 'Withdrawal' ELSE 'Deposit' END`,
	"amount":                 `amount`,
	"currency":               csvText(`currency`),
	"transactionStatus":      csvStatus,
	// Never empty, never quoted; guarded only when it starts with a minus.
	"callbackDeliveryStatus":   `CASE WHEN callbacks_delivered < 0 THEN '''' ELSE '' END || callbacks_delivered || '/' || callbacks_total`,
	"createdUtc":               csvTime(`created_at`),
	"updatedUtc":               csvTime(`updated_at`),
	"nonce":                    csvText(`nonce`),
	"merchantClientId":         csvText(`merchant_client_id`),
	"providerTransactionId":    csvText(`provider_transaction_id`),
	"providerPayType":          csvText(`pay_type_name`),
	"transactionStatusMessage": csvText(`status_message`),
	"errorMessage":             csvText(`error_message`),
	"paymentMethodValue":       csvText(`payment_method_value`),
	"paymentIpAddress":         csvText(`payment_ip_address`),
	"destinationAmount":        `destination_amount`,
	"destinationCurrency":      csvText(`destination_currency`),
	"appliedFeeAmount":         `applied_fee_amount`,
	"appliedFeeCurrency":       csvText(`applied_fee_currency`),
	"pollingAttempts":          `poll_attempts`,
}

var placeholder = regexp.MustCompile(`\$[0-9]+`)

// CopyTransactionsCSV implements export.CSVCopier: one COPY (SELECT <each
// cell formatted>) TO STDOUT WITH (FORMAT csv) on the read pool, in a
// read-only repeatable-read transaction whose TimeZone is the export's.
//
// COPY takes no parameters, so the filter's values never enter the SQL:
// the statement with its $n placeholders is described first (Postgres
// gives each one's type), each value is set with set_config (bound, local
// to the transaction) as its text in that type, and the COPY reads it back
// with current_setting('paygate.export_n')::type.
func (s *Files) CopyTransactionsCSV(ctx context.Context, f payment.ListFilter, fields []string, timeZone string, w io.Writer) error {
	exprs := make([]string, len(fields))
	for i, field := range fields {
		e, ok := csvCells[field]
		if !ok {
			return export.ErrNoCopy
		}
		exprs[i] = e
	}
	c := listConditions(microseconds(f))
	noCopy := false
	err := pgx.BeginTxFunc(ctx, s.reads, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(t pgx.Tx) error {
		if _, err := t.Exec(ctx, `SELECT set_config('TimeZone', $1, true)`, timeZone); err != nil {
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
// $n replaced by the setting paygate.export_n cast to the parameter's
// type, having set those settings (local to t) to args as text.
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
	for i, a := range args {
		names[i] = "paygate.export_" + strconv.Itoa(i+1)
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
		if values[n-1] == nil {
			return `NULL::` + types[n-1]
		}
		return `current_setting(` + sqlString(names[n-1]) + `)::` + types[n-1]
	})
	return out, bad
}
