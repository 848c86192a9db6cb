package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/fee"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Fees is the Postgres implementation of fee.Store (migrations 0005 and
// 0018). Every change bumps the configuration version (migration 0011), so
// the payment path of every replica reads it for its next payment.
type Fees struct {
	pool *pgxpool.Pool
	// reads serves the previews (WithReads); pool by default.
	reads *pgxpool.Pool
}

var _ fee.Store = (*Fees)(nil)

// NewFees returns the fee store on pool.
func NewFees(pool *pgxpool.Pool) *Fees { return &Fees{pool: pool, reads: pool} }

// WithReads makes s compute its previews on reads, a read-only pool on a
// streaming replica of pool's database (app.Parts.ReadPool): a preview
// reads up to a few hundred thousand transactions and may lag. The fees'
// list and every write, with the reads that decide it, stay on pool. It
// returns s.
func (s *Fees) WithReads(reads *pgxpool.Pool) *Fees {
	if reads != nil {
		s.reads = reads
	}
	return s
}

const entityFee = "The fee"

// feeColumns are the columns scanFee reads, of fees f.
const feeColumns = `f.id, COALESCE(f.collab_id, 0), COALESCE(f.transaction_type, 0), COALESCE(f.pay_type_id, 0),
	f.currency_from, f.currency_to, COALESCE((SELECT id FROM currencies WHERE code = f.currency_from), 0),
	COALESCE((SELECT id FROM currencies WHERE code = f.currency_to), 0), f.amount_min::text, f.amount_max::text,
	f.fee_type, f.value::text, f.payer, f.priority, f.enabled, f.created_at`

func scanFee(row pgx.Row) (fee.Fee, error) {
	var f fee.Fee
	var lo, hi *string
	var value string
	if err := row.Scan(&f.ID, &f.CollabID, &f.Type, &f.PayTypeID, &f.CurrencyFrom, &f.CurrencyTo, &f.CurrencyFromID,
		&f.CurrencyToID, &lo, &hi, &f.FeeType, &value, &f.Payer, &f.Priority, &f.Enabled, &f.CreatedAt); err != nil {
		return f, err
	}
	var err error
	if f.AmountMin, err = amountOf(lo); err != nil {
		return f, err
	}
	if f.AmountMax, err = amountOf(hi); err != nil {
		return f, err
	}
	f.Value, err = payment.ParseDecimal4(value)
	f.CreatedAt = f.CreatedAt.UTC()
	return f, err
}

func collectFees(rows pgx.Rows, err error) ([]fee.Fee, error) {
	if err != nil {
		return nil, fmt.Errorf("select fees: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (fee.Fee, error) { return scanFee(row) })
}

// Currencies implements fee.Store.
func (s *Fees) Currencies(ctx context.Context) ([]fee.Currency, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, code FROM currencies ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("select currencies: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (fee.Currency, error) {
		var c fee.Currency
		return c, row.Scan(&c.ID, &c.Code)
	})
}

// PayTypes implements fee.Store.
func (s *Fees) PayTypes(ctx context.Context) ([]fee.PayType, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, code FROM pay_types ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("select pay types: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (fee.PayType, error) {
		var p fee.PayType
		return p, row.Scan(&p.ID, &p.Name, &p.Code)
	})
}

// Collab implements fee.Store.
func (s *Fees) Collab(ctx context.Context, id int32) (fee.CollabRef, error) {
	var c fee.CollabRef
	err := s.pool.QueryRow(ctx, `
		SELECT c.id, c.merchant_id, c.provider_id, m.name, p.name
		FROM collabs c JOIN merchants m ON m.id = c.merchant_id JOIN providers p ON p.id = c.provider_id
		WHERE c.id = $1`, id).Scan(&c.ID, &c.MerchantID, &c.ProviderID, &c.MerchantName, &c.ProviderName)
	return c, pgdb.Translate(err, "The collab")
}

// CollabsOf implements fee.Store.
func (s *Fees) CollabsOf(ctx context.Context, merchantIDs []int32) ([]int32, error) {
	rows, err := s.pool.Query(ctx, `SELECT id FROM collabs WHERE merchant_id = ANY($1) ORDER BY id`, merchantIDs)
	if err != nil {
		return nil, fmt.Errorf("select collabs of %v: %w", merchantIDs, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[int32])
}

// CollabPayTypes implements fee.Store.
func (s *Fees) CollabPayTypes(ctx context.Context, id int32) ([]int32, error) {
	rows, err := s.pool.Query(ctx, `SELECT pay_type_id FROM collab_pay_types WHERE collab_id = $1 ORDER BY pay_type_id`, id)
	if err != nil {
		return nil, fmt.Errorf("select pay types of collab %d: %w", id, err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[int32])
}

// List implements fee.Store: offset pages by id. A merchant user's fees are
// those of its merchants' collabs and the global ones (fees_collab_idx).
func (s *Fees) List(ctx context.Context, q fee.Query) (fee.Page, error) {
	var c conditions
	if !q.Scope.All {
		merchants := q.Scope.MerchantIDs
		if merchants == nil {
			merchants = []int32{}
		}
		c.add(`(f.collab_id IS NULL OR f.collab_id IN (SELECT id FROM collabs WHERE merchant_id = ANY(?)))`, merchants)
	}
	if q.CollabID != nil {
		if *q.CollabID == 0 {
			c.add(`f.collab_id IS NULL`)
		} else {
			c.add(`f.collab_id = ?`, *q.CollabID)
		}
	}
	optional := func(col string, v *int32) {
		switch {
		case v == nil:
		case *v == 0:
			c.add(col + ` IS NULL`)
		default:
			c.add(col+` = ?`, *v)
		}
	}
	optional("f.transaction_type", q.TransactionType)
	optional("f.pay_type_id", q.PayTypeID)
	if q.CurrencyFromID != nil {
		c.add(`f.currency_from = (SELECT code FROM currencies WHERE id = ?)`, *q.CurrencyFromID)
	}
	if q.CurrencyToID != nil {
		c.add(`f.currency_to = (SELECT code FROM currencies WHERE id = ?)`, *q.CurrencyToID)
	}
	if q.Enabled != nil {
		c.add(`f.enabled = ?`, *q.Enabled)
	}
	where := c.where()
	var p fee.Page
	if err := s.pool.QueryRow(ctx, countSQL(q, where), c.args...).Scan(&p.TotalCount); err != nil {
		return p, fmt.Errorf("count fees: %w", err)
	}
	if p.TotalCount <= int64(q.Offset) {
		p.Fees = []fee.Fee{}
		return p, nil
	}
	args := append(c.args, q.Limit, q.Offset)
	var err error
	// The page's rows first, then their columns: the currency ids are read
	// for the page only, not for every row the offset skips.
	p.Fees, err = collectFees(s.pool.Query(ctx, `SELECT `+feeColumns+` FROM (SELECT * FROM fees f`+where+
		fmt.Sprintf(` ORDER BY f.id LIMIT $%d OFFSET $%d) f ORDER BY f.id`, len(args)-1, len(args)), args...))
	return p, err
}

// countSQL is the statement counting the fees of q (its conditions where,
// on fees f): without other filters than the scope and the collab, a sum
// of fee_counts (migration 0018), whose arguments are those of where.
func countSQL(q fee.Query, where string) string {
	if q.TransactionType != nil || q.PayTypeID != nil || q.CurrencyFromID != nil || q.CurrencyToID != nil || q.Enabled != nil {
		return `SELECT count(*) FROM fees f` + where
	}
	// The same conditions on fee_counts' rows: collab_id 0 stands for NULL.
	w := strings.ReplaceAll(where, `f.collab_id IS NULL`, `f.collab_id = 0`)
	return `SELECT COALESCE(sum(f.n), 0)::bigint FROM fee_counts f` + w
}

// Get implements fee.Store.
func (s *Fees) Get(ctx context.Context, id int64) (fee.Fee, error) {
	f, err := scanFee(s.pool.QueryRow(ctx, `SELECT `+feeColumns+` FROM fees f WHERE f.id = $1`, id))
	return f, pgdb.Translate(err, entityFee)
}

// candidatesSQL selects the enabled fees other than $3 that may conflict
// with a fee of currencies $1, $2, collab $4, type $5, pay type $6 and
// amounts $7 to $8 (NULL: open): a narrowing by index, the rule itself is
// payment.Conflicts.
const candidatesSQL = `SELECT ` + feeColumns + ` FROM fees f
	WHERE f.enabled AND f.currency_from = $1 AND f.currency_to = $2 AND f.id <> $3
		AND ($4 = 0 OR f.collab_id IS NULL OR f.collab_id = $4)
		AND ($5 = 0 OR f.transaction_type IS NULL OR f.transaction_type = $5)
		AND ($6 = 0 OR f.pay_type_id IS NULL OR f.pay_type_id = $6)
		AND ($7::numeric IS NULL OR f.amount_max IS NULL OR f.amount_max >= $7::numeric)
		AND ($8::numeric IS NULL OR f.amount_min IS NULL OR f.amount_min <= $8::numeric)
	ORDER BY f.id LIMIT $9`

func candidateArgs(f payment.Fee, excludeID int64, limit int) []any {
	var lo, hi *string
	if f.AmountMin.IsSet() {
		v := f.AmountMin.String()
		lo = &v
	}
	if f.AmountMax.IsSet() {
		v := f.AmountMax.String()
		hi = &v
	}
	return []any{f.CurrencyFrom, f.CurrencyTo, excludeID, f.CollabID, int16(f.Type), f.PayTypeID, lo, hi, limit}
}

// Candidates implements fee.Store.
func (s *Fees) Candidates(ctx context.Context, f payment.Fee, excludeID int64, limit int) ([]fee.Fee, error) {
	return collectFees(s.pool.Query(ctx, candidatesSQL, candidateArgs(f, excludeID, limit)...))
}

// ForCollab implements fee.Store.
func (s *Fees) ForCollab(ctx context.Context, collabID int32) ([]fee.Fee, error) {
	return collectFees(s.pool.Query(ctx, `SELECT `+feeColumns+` FROM fees f
		WHERE f.enabled AND (f.collab_id IS NULL OR f.collab_id = $1) ORDER BY f.id`, collabID))
}

// lockCurrencies serializes the saves of fees of one currency pair, so
// that two saves cannot both pass the conflict check and conflict with each
// other.
func lockCurrencies(ctx context.Context, t pgx.Tx, from, to string) error {
	if _, err := t.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('paygate.fees'), hashtext($1 || '/' || $2))`, from, to); err != nil {
		return fmt.Errorf("lock fees of %s/%s: %w", from, to, err)
	}
	return nil
}

func nullable[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// Save implements fee.Store.
func (s *Fees) Save(ctx context.Context, f fee.Fee, check func(old *fee.Fee, candidates []fee.Fee) error,
	then func(ctx context.Context, j fee.Journal, old *fee.Fee, stored fee.Fee) error) (fee.Fee, error) {
	var out fee.Fee
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		if err := lockCurrencies(ctx, t, f.CurrencyFrom, f.CurrencyTo); err != nil {
			return err
		}
		var old *fee.Fee
		if f.ID != 0 {
			o, err := scanFee(t.QueryRow(ctx, `SELECT `+feeColumns+` FROM fees f WHERE f.id = $1 FOR UPDATE`, f.ID))
			if errors.Is(err, pgx.ErrNoRows) {
				return apperr.NotFound("Fee %d was not found.", f.ID)
			}
			if err != nil {
				return fmt.Errorf("select fee %d: %w", f.ID, err)
			}
			old = &o
		}
		var candidates []fee.Fee
		if f.Enabled {
			var err error
			if candidates, err = collectFees(t.Query(ctx, candidatesSQL, candidateArgs(f.Fee, f.ID, fee.MaxConflicts*10)...)); err != nil {
				return err
			}
		}
		if err := check(old, candidates); err != nil {
			return err
		}
		args := []any{nullable(f.CollabID), nullable(int16(f.Type)), nullable(f.PayTypeID), f.CurrencyFrom, f.CurrencyTo,
			nullable(f.AmountMin.String()), nullable(f.AmountMax.String()), int16(f.FeeType), f.Value.String(), f.Payer,
			f.Priority, f.Enabled}
		var id int64
		var err error
		if f.ID == 0 {
			err = t.QueryRow(ctx, `
				INSERT INTO fees (collab_id, transaction_type, pay_type_id, currency_from, currency_to, amount_min,
					amount_max, fee_type, value, payer, priority, enabled)
				VALUES ($1, $2, $3, $4, $5, $6::numeric, $7::numeric, $8, $9::numeric, $10, $11, $12) RETURNING id`,
				args...).Scan(&id)
		} else {
			err = t.QueryRow(ctx, `
				UPDATE fees SET collab_id = $1, transaction_type = $2, pay_type_id = $3, currency_from = $4,
					currency_to = $5, amount_min = $6::numeric, amount_max = $7::numeric, fee_type = $8,
					value = $9::numeric, payer = $10, priority = $11, enabled = $12, updated_at = now()
				WHERE id = $13 RETURNING id`, append(args, f.ID)...).Scan(&id)
		}
		if err != nil {
			return fmt.Errorf("write fee: %w", pgdb.Translate(err, entityFee))
		}
		if out, err = scanFee(t.QueryRow(ctx, `SELECT `+feeColumns+` FROM fees f WHERE f.id = $1`, id)); err != nil {
			return fmt.Errorf("read fee %d: %w", id, err)
		}
		return then(ctx, &tx{t: t}, old, out)
	})
	return out, err
}

// Delete implements fee.Store.
func (s *Fees) Delete(ctx context.Context, id int64, check func(old fee.Fee) error, then func(ctx context.Context, j fee.Journal, old fee.Fee) error) error {
	return pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		old, err := scanFee(t.QueryRow(ctx, `SELECT `+feeColumns+` FROM fees f WHERE f.id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.NotFound("Fee %d was not found.", id)
		}
		if err != nil {
			return fmt.Errorf("select fee %d: %w", id, err)
		}
		if err := check(old); err != nil {
			return err
		}
		if _, err := t.Exec(ctx, `DELETE FROM fees WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete fee %d: %w", id, err)
		}
		return then(ctx, &tx{t: t}, old)
	})
}

// previewSQL returns the statement Preview runs for q and its arguments:
// one pass over the window's transactions (transactions_fee_preview_idx,
// index only), each joined to the fee that wins its kind (q.Winners, by its
// collab or, for a collab without fees of its own, by collab 0) and charged
// as payment.Fee.Charge does (a percentage or a fixed value rounded half up
// to the cent; Postgres rounds numeric halves away from zero, the same for
// fees, which are never negative).
func previewSQL(q fee.PreviewQuery) (string, []any) {
	n := len(q.Winners)
	collabs, types, payTypes, regions := make([]int32, n), make([]int16, n), make([]int32, n), make([]int32, n)
	currencies, feeTypes, values := make([]string, n), make([]int16, n), make([]string, n)
	for i, w := range q.Winners {
		collabs[i], types[i], payTypes[i], regions[i] = w.CollabID, w.Type, w.PayTypeID, w.Region
		currencies[i], feeTypes[i], values[i] = w.Currency, int16(w.FeeType), w.Value
	}
	args := []any{collabs, types, payTypes, regions, currencies, feeTypes, values, q.Bounds, q.From, q.To}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	where := []string{`t.created_at >= $9`, `t.created_at < $10`}
	if q.Collabs != nil {
		where = append(where, `t.collab_id = ANY(`+arg(q.Collabs)+`::integer[])`)
	}
	var scopes, codes []string
	for _, f := range q.Scopes {
		code := strings.ToUpper(f.CurrencyFrom)
		codes = append(codes, code)
		c := []string{`t.currency = ` + arg(code)}
		if f.CollabID != 0 {
			c = append(c, `t.collab_id = `+arg(f.CollabID))
		}
		if f.Type != 0 {
			c = append(c, `t.transaction_type = `+arg(int16(f.Type)))
		}
		if f.PayTypeID != 0 {
			c = append(c, `t.pay_type_id = `+arg(f.PayTypeID))
		}
		if f.AmountMin.IsSet() {
			c = append(c, `t.amount >= `+arg(f.AmountMin.String())+`::numeric`)
		}
		if f.AmountMax.IsSet() {
			c = append(c, `t.amount <= `+arg(f.AmountMax.String())+`::numeric`)
		}
		scopes = append(scopes, `(`+strings.Join(c, ` AND `)+`)`)
	}
	if len(scopes) == 0 {
		scopes = []string{`false`}
	}
	where = append(where, `t.currency = ANY(`+arg(codes)+`::text[])`, `(`+strings.Join(scopes, ` OR `)+`)`)
	return `
		WITH w AS MATERIALIZED (
			SELECT * FROM unnest($1::integer[], $2::smallint[], $3::integer[], $4::integer[], $5::text[],
				$6::smallint[], $7::numeric[]) AS w(collab_id, transaction_type, pay_type_id, region, currency, fee_type, value)
		), t AS (
			SELECT t.collab_id, t.transaction_type, t.pay_type_id, t.currency, t.amount,
				COALESCE(t.applied_fee_amount, 0) AS before,
				width_bucket((t.amount * 100)::bigint, $8::bigint[]) AS region
			FROM transactions t
			WHERE ` + strings.Join(where, ` AND `) + `
		), x AS (
			SELECT t.currency, t.before,
				CASE COALESCE(w1.fee_type, w0.fee_type)
					WHEN 1 THEN round(t.amount * COALESCE(w1.value, w0.value) / 100, 2)
					WHEN 2 THEN round(COALESCE(w1.value, w0.value), 2)
					ELSE 0 END AS after
			FROM t
			LEFT JOIN w w1 ON w1.collab_id = t.collab_id AND w1.transaction_type = t.transaction_type
				AND w1.pay_type_id = t.pay_type_id AND w1.region = t.region AND w1.currency = t.currency
			LEFT JOIN w w0 ON w0.collab_id = 0 AND w0.transaction_type = t.transaction_type
				AND w0.pay_type_id = t.pay_type_id AND w0.region = t.region AND w0.currency = t.currency
		)
		SELECT currency, count(*), count(*) FILTER (WHERE after <> before), sum(before)::numeric(20, 2)::text,
			sum(after)::numeric(20, 2)::text
		FROM x GROUP BY currency ORDER BY currency`, args
}

// Preview implements fee.Store.
func (s *Fees) Preview(ctx context.Context, q fee.PreviewQuery) ([]fee.PreviewCurrency, error) {
	sql, args := previewSQL(q)
	// An unnamed statement, planned with its values each time: a cached
	// generic plan does not know the window, the collabs or the amounts and
	// chose a scan three times slower (bench/RESULTS.md, "Fees").
	rows, err := s.reads.Query(ctx, sql, append([]any{pgx.QueryExecModeDescribeExec}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("preview fee: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (fee.PreviewCurrency, error) {
		var c fee.PreviewCurrency
		return c, row.Scan(&c.Currency, &c.Count, &c.Changed, &c.Before, &c.After)
	})
}
