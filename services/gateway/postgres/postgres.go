// Package postgres stores the gateway's data in Postgres (schema "gateway")
// and embeds its migrations.
package postgres

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/merchant"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Schema is the gateway's Postgres schema.
const Schema = "gateway"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the gateway's migrations, at the root of the FS as
// pgdb.Migrate expects.
var Migrations = mustSub(migrationFiles, "migrations")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("embedded migrations: %v", err))
	}
	return sub
}

// Store is the Postgres implementation of merchant.Store.
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
	rows, err := s.pool.Query(ctx, `SELECT id, name, hash FROM merchants ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("select merchants: %w", err)
	}
	return collectMerchants(rows)
}

// ByIDs implements merchant.Store.
func (s *Store) ByIDs(ctx context.Context, ids []int32) ([]merchant.Merchant, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, name, hash FROM merchants WHERE id = ANY($1) ORDER BY id`, ids)
	if err != nil {
		return nil, fmt.Errorf("select merchants %v: %w", ids, err)
	}
	return collectMerchants(rows)
}

func collectMerchants(rows pgx.Rows) ([]merchant.Merchant, error) {
	ms, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (merchant.Merchant, error) {
		var m merchant.Merchant
		err := row.Scan(&m.ID, &m.Name, &m.Hash)
		return m, err
	})
	if err != nil {
		return nil, fmt.Errorf("read merchants: %w", err)
	}
	return ms, nil
}

// SeedDemo inserts or refreshes the demo merchants (merchant.Demo); running it
// again changes nothing.
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
		return nil
	})
}
