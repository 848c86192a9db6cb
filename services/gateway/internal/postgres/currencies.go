package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/currency"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Currencies is the Postgres implementation of currency.Store (migration
// 0016).
type Currencies struct {
	pool *pgxpool.Pool
}

var _ currency.Store = (*Currencies)(nil)

// NewCurrencies returns the currency store on pool.
func NewCurrencies(pool *pgxpool.Pool) *Currencies {
	return &Currencies{pool: pool}
}

const rateColumns = `r.id, r.currency, r.usd_rate::text, r.effective_from, r.set_by, r.set_at`

func scanRate(row pgx.Row) (currency.Rate, error) {
	var r currency.Rate
	err := row.Scan(&r.ID, &r.Currency, &r.USDRate, &r.EffectiveFrom, &r.SetBy, &r.SetAt)
	r.EffectiveFrom, r.SetAt = r.EffectiveFrom.UTC(), r.SetAt.UTC()
	return r, err
}

// Currencies implements currency.Store.
func (c *Currencies) Currencies(ctx context.Context, day time.Time) ([]currency.Currency, error) {
	rows, err := c.pool.Query(ctx, `
		SELECT c.id, c.code, c.name, c.decimals, `+rateColumns+`
		FROM currencies c
		LEFT JOIN LATERAL (SELECT * FROM currency_rates x WHERE x.currency = c.code AND x.effective_from <= $1
			ORDER BY x.effective_from DESC, x.id DESC LIMIT 1) r ON true
		ORDER BY c.code`, day)
	if err != nil {
		return nil, fmt.Errorf("select currencies: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (currency.Currency, error) {
		var cur currency.Currency
		var id *int64
		var code, rate, setBy *string
		var from, setAt *time.Time
		if err := row.Scan(&cur.ID, &cur.Code, &cur.Name, &cur.Decimals, &id, &code, &rate, &from, &setBy, &setAt); err != nil {
			return cur, err
		}
		if id != nil {
			cur.Rate = &currency.Rate{ID: *id, Currency: *code, USDRate: *rate, EffectiveFrom: from.UTC(), SetBy: *setBy, SetAt: setAt.UTC()}
		}
		return cur, nil
	})
}

const entityCurrency = "The currency"

// currencyExists reports not found for an unknown code.
func currencyExists(ctx context.Context, q pgdb.Querier, code string, lock bool) error {
	sql := `SELECT true FROM currencies WHERE code = $1`
	if lock {
		sql += ` FOR SHARE`
	}
	var ok bool
	err := q.QueryRow(ctx, sql, code).Scan(&ok)
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.NotFound("Currency %q was not found.", code)
	}
	return pgdb.Translate(err, entityCurrency)
}

// Rates implements currency.Store.
func (c *Currencies) Rates(ctx context.Context, code string) ([]currency.Rate, error) {
	if err := currencyExists(ctx, c.pool, code, false); err != nil {
		return nil, err
	}
	rows, err := c.pool.Query(ctx, `SELECT `+rateColumns+` FROM currency_rates r WHERE r.currency = $1
		ORDER BY r.effective_from DESC, r.id DESC`, code)
	if err != nil {
		return nil, fmt.Errorf("select rates of %s: %w", code, err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (currency.Rate, error) { return scanRate(row) })
}

// SetRate implements currency.Store.
func (c *Currencies) SetRate(ctx context.Context, r currency.Rate, then func(ctx context.Context, j currency.Journal, stored currency.Rate) error) (currency.Rate, error) {
	var out currency.Rate
	err := pgdb.InTx(ctx, c.pool, func(t pgx.Tx) error {
		if err := currencyExists(ctx, t, r.Currency, true); err != nil {
			return err
		}
		var err error
		out, err = scanRate(t.QueryRow(ctx, `
			INSERT INTO currency_rates AS r (currency, usd_rate, effective_from, set_by)
			VALUES ($1, $2::numeric, $3, $4)
			RETURNING `+rateColumns, r.Currency, r.USDRate, r.EffectiveFrom, r.SetBy))
		if err != nil {
			return fmt.Errorf("insert rate of %s: %w", r.Currency, err)
		}
		return then(ctx, &tx{t: t}, out)
	})
	return out, err
}

// eachRateBatch is how many rates EachRate reads per query.
const eachRateBatch = 1000

// EachRate implements currency.Store: keyset pages by id, so that no query
// stays open while fn runs.
func (c *Currencies) EachRate(ctx context.Context, fn func(currency.Rate) error) error {
	var after int64
	for {
		rows, err := c.pool.Query(ctx, `SELECT `+rateColumns+` FROM currency_rates r WHERE r.id > $1 ORDER BY r.id LIMIT $2`,
			after, eachRateBatch)
		if err != nil {
			return fmt.Errorf("select rates: %w", err)
		}
		rates, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (currency.Rate, error) { return scanRate(row) })
		if err != nil {
			return fmt.Errorf("read rates: %w", err)
		}
		for _, r := range rates {
			if err := fn(r); err != nil {
				return err
			}
		}
		if len(rates) < eachRateBatch {
			return nil
		}
		after = rates[len(rates)-1].ID
	}
}

// DemoRates are the rates demo mode seeds: PHP at 0.0172 USD from
// 2025-01-01, and USD at 1 (which migration 0016 also sets).
func DemoRates() []currency.Rate {
	from := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	return []currency.Rate{
		{Currency: "PHP", USDRate: "0.0172", EffectiveFrom: from, SetBy: "demo"},
		{Currency: currency.USD, USDRate: "1", EffectiveFrom: currency.FirstDay, SetBy: "demo"},
	}
}

// SeedRatesDemo adds the demo rates (DemoRates) that are not there yet, a
// rate counting as there when its currency has any rate on its day, each
// with its CurrencyRateSet event. Running it again adds nothing.
func (c *Currencies) SeedRatesDemo(ctx context.Context) error {
	return pgdb.InTx(ctx, c.pool, func(t pgx.Tx) error {
		// One seeder at a time: two replicas starting together add each
		// rate once.
		if _, err := t.Exec(ctx, `LOCK TABLE currency_rates IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("lock rates: %w", err)
		}
		for _, r := range DemoRates() {
			stored, err := scanRate(t.QueryRow(ctx, `
				INSERT INTO currency_rates AS r (currency, usd_rate, effective_from, set_by)
				SELECT $1, $2::numeric, $3, $4
				WHERE NOT EXISTS (SELECT 1 FROM currency_rates WHERE currency = $1 AND effective_from = $3)
				RETURNING `+rateColumns, r.Currency, r.USDRate, r.EffectiveFrom, r.SetBy))
			if errors.Is(err, pgx.ErrNoRows) {
				continue
			}
			if err != nil {
				return fmt.Errorf("seed demo rate of %s: %w", r.Currency, err)
			}
			if err := (&tx{t: t}).Publish(ctx, stored.Event()); err != nil {
				return err
			}
		}
		return nil
	})
}
