// Package postgres stores the gateway's data in Postgres (schema "gateway"
// by default) and embeds its migrations: merchants, providers, pay types,
// collabs, the activity log, the maintenance switch and the outbox.
package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Schema is the gateway's Postgres schema unless PAYGATE_DATABASE_SCHEMA
// names another.
const Schema = "gateway"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the gateway's migrations, at the root of the FS as
// pgdb.Migrate expects.
var Migrations = pgdb.EmbeddedMigrations(migrationFiles, "migrations")

// Store is the Postgres implementation of merchant.Store and collab.Store.
type Store struct {
	pool *pgxpool.Pool
}

var _ merchant.Store = (*Store)(nil)

// NewStore returns a store on pool (whose search_path is the gateway schema).
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool}
}

// All implements merchant.Store.
func (s *Store) All(ctx context.Context) ([]merchant.Merchant, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+merchantColumns+` FROM merchants ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("select merchants: %w", err)
	}
	return collectMerchants(rows)
}

// ByIDs implements merchant.Store.
func (s *Store) ByIDs(ctx context.Context, ids []int32) ([]merchant.Merchant, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+merchantColumns+` FROM merchants WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return nil, fmt.Errorf("select merchants %v: %w", ids, err)
	}
	return collectMerchants(rows)
}

// merchantColumns are the columns scanMerchant reads.
const merchantColumns = `id, name, hash, contact_name, contact_email, disabled`

func scanMerchant(row pgx.Row) (merchant.Merchant, error) {
	var m merchant.Merchant
	err := row.Scan(&m.ID, &m.Name, &m.Hash, &m.ContactName, &m.ContactEmail, &m.Disabled)
	return m, err
}

func collectMerchants(rows pgx.Rows) ([]merchant.Merchant, error) {
	ms, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (merchant.Merchant, error) {
		return scanMerchant(row)
	})
	if err != nil {
		return nil, fmt.Errorf("read merchants: %w", err)
	}
	return ms, nil
}

// SeedDemo inserts or refreshes the demo merchants (merchant.Demo), pay
// types and providers (collab.DemoPayTypes, collab.DemoProviders), and
// creates the demo collabs (collab.DemoCollabs) that do not exist yet; a
// collab that exists is left as operators changed it. Running it again
// changes nothing.
func (s *Store) SeedDemo(ctx context.Context) error {
	return pgdb.InTx(ctx, s.pool, func(tx pgx.Tx) error {
		for _, m := range merchant.Demo() {
			_, err := tx.Exec(ctx, `
				INSERT INTO merchants (id, name, hash) VALUES ($1, $2, $3)
				ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, hash = EXCLUDED.hash
				WHERE (merchants.name, merchants.hash) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.hash)`,
				m.ID, m.Name, m.Hash)
			if err != nil {
				return fmt.Errorf("seed demo merchant %d: %w", m.ID, err)
			}
		}
		for _, pt := range collab.DemoPayTypes() {
			_, err := tx.Exec(ctx, `
				INSERT INTO pay_types (id, name, code) VALUES ($1, $2, $3)
				ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, code = EXCLUDED.code
				WHERE (pay_types.name, pay_types.code) IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.code)`,
				pt.ID, pt.Name, pt.Code)
			if err != nil {
				return fmt.Errorf("seed demo pay type %d: %w", pt.ID, err)
			}
		}
		for _, p := range collab.DemoProviders() {
			// is_enabled is the operators' switch: set on creation only.
			_, err := tx.Exec(ctx, `
				INSERT INTO providers (id, name, is_enabled, supports_cash_in, supports_cash_out,
					supports_polling, supports_balance, path_segment)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
				ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, supports_cash_in = EXCLUDED.supports_cash_in,
					supports_cash_out = EXCLUDED.supports_cash_out, supports_polling = EXCLUDED.supports_polling,
					supports_balance = EXCLUDED.supports_balance, path_segment = EXCLUDED.path_segment, updated_at = now()
				WHERE (providers.name, providers.supports_cash_in, providers.supports_cash_out, providers.supports_polling,
					providers.supports_balance, providers.path_segment)
				IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.supports_cash_in, EXCLUDED.supports_cash_out,
					EXCLUDED.supports_polling, EXCLUDED.supports_balance, EXCLUDED.path_segment)`,
				p.ID, p.Name, p.IsEnabled, p.SupportsCashIn, p.SupportsCashOut, p.SupportsPolling, p.SupportsBalance, p.PathSegment)
			if err != nil {
				return fmt.Errorf("seed demo provider %d: %w", p.ID, err)
			}
			for _, pt := range p.PayTypes {
				_, err := tx.Exec(ctx, `
					INSERT INTO provider_pay_types (provider_id, pay_type_id, cash_in, cash_out) VALUES ($1, $2, $3, $4)
					ON CONFLICT (provider_id, pay_type_id) DO UPDATE SET cash_in = EXCLUDED.cash_in, cash_out = EXCLUDED.cash_out
					WHERE (provider_pay_types.cash_in, provider_pay_types.cash_out) IS DISTINCT FROM (EXCLUDED.cash_in, EXCLUDED.cash_out)`,
					p.ID, pt.ID, pt.CashIn, pt.CashOut)
				if err != nil {
					return fmt.Errorf("seed demo pay type %d of provider %d: %w", pt.ID, p.ID, err)
				}
			}
		}
		for _, c := range collab.DemoCollabs() {
			id, err := insertCollab(ctx, tx, c, true)
			if err != nil {
				return fmt.Errorf("seed demo collab: %w", err)
			}
			if id == 0 {
				continue
			}
			if err := insertCollabPayTypes(ctx, tx, id, c.Provider.ID, c.PayTypes); err != nil {
				return fmt.Errorf("seed demo collab %d: %w", id, err)
			}
		}
		return nil
	})
}
