// Package postgres stores the callbacks service's data in Postgres (schema
// "callbacks" by default) and embeds its migrations: callback URLs, signing
// keys, the transaction projection, deliveries, attempts and the outbox.
//
// Lock order, kept by every method so that concurrent ones never deadlock
// on each other: transactions rows (in id order), then deliveries, then
// attempts, then tallies (in id order). A tally changes by the deltas of
// the statements that changed deliveries, added under the tally row's lock,
// so concurrent writers never lose each other's changes and no delivery is
// counted again.
package postgres

import (
	"embed"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Schema is the service's Postgres schema unless PAYGATE_DATABASE_SCHEMA
// names another.
const Schema = "callbacks"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's migrations, at the root of the FS as
// pgdb.Migrate expects.
var Migrations = pgdb.EmbeddedMigrations(migrationFiles, "migrations")

// Store is the Postgres implementation of callback.Store.
type Store struct {
	pool *pgxpool.Pool
	// Breakers tune the callback URLs' circuit breakers (defaults when
	// zero); set before the store is used.
	Breakers callback.BreakerSettings
}

var _ callback.Store = (*Store)(nil)

// NewStore returns a store on pool (whose search_path is the service's
// schema).
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool}
}

// keysOf returns m's keys in order.
func keysOf[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
