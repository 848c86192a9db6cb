// Package postgres stores the aggregator's data in Postgres (schema
// "aggregator" by default) and embeds its migrations: transaction states,
// the hour, day and month rollups, the cash rollup by local day, names,
// rates, and the jobs' stats.
//
// Lock order, kept by every writer so that concurrent batches (the live
// consumer and a rebuild) never deadlock on each other: tx_state rows in id
// order, then rollup rows in key order (hours, days, months, then the cash
// rollup), then names, then the progress row. A rebuild's PutStates keeps
// the same order without the rollups; since a live batch locks the rows it
// inserts before the others, the two can still meet in a deadlock, which
// Postgres breaks by failing one: the live batch is delivered again,
// PutStates tries again. BuildRollups takes tx_state in SHARE mode before
// anything else, so it waits for live batches and they wait for it, never
// both.
package postgres

import (
	"embed"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/internal/pgdb"
)

// Schema is the service's Postgres schema unless PAYGATE_DATABASE_SCHEMA
// names another.
const Schema = "aggregator"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the service's migrations, at the root of the FS as
// pgdb.Migrate expects.
var Migrations = pgdb.EmbeddedMigrations(migrationFiles, "migrations")

// Store is the Postgres implementation of statistics.Store and
// jobstats.Store.
type Store struct {
	pool *pgxpool.Pool
}

// NewStore returns a store on pool (whose search_path is the service's
// schema).
func NewStore(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool}
}
