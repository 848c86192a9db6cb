// Package pgdb opens a service's Postgres pool inside its own schema, runs its
// embedded migrations and translates driver errors into apperr kinds.
//
// Migrations convention: a service embeds files named
// NNNN_description.up.sql (optionally .down.sql) at the root of the fs.FS it
// passes to Migrate, written without schema qualifiers: Migrate runs them with
// search_path set to the service's schema, and keeps golang-migrate's
// schema_migrations table in that schema too.
package pgdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strconv"
	"time"

	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Open connects to url and returns a pool whose connections all use schema as
// their search_path. It creates the schema when it is missing and checks the
// connection before returning.
func Open(ctx context.Context, url, schema string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if err := ensureSchema(ctx, cfg.ConnConfig.Copy(), schema); err != nil {
		return nil, err
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open pool for schema %s: %w", schema, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database for schema %s: %w", schema, err)
	}
	return pool, nil
}

// OpenReadOnly connects to url, a read-only copy of a service's database (a
// streaming replica, or the primary itself), and returns a pool whose
// connections use schema as their search_path and refuse writes: every
// session starts with default_transaction_read_only on, so a write sent to
// it by mistake fails (SQLSTATE 25006) instead of reaching the primary's
// data through a pool meant for reads. It does not create the schema (a
// replica cannot; the primary's migrations make it) and checks the
// connection before returning.
func OpenReadOnly(ctx context.Context, url, schema string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database read url: %w", err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.ConnConfig.RuntimeParams["default_transaction_read_only"] = "on"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open read pool for schema %s: %w", schema, err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping read database for schema %s: %w", schema, err)
	}
	return pool, nil
}

// ReplicaLag returns how far behind its primary the database q reads
// (a pool, a connection or a transaction) is: 0 on a primary, and on a streaming replica 0 when it has replayed
// all the WAL it received, else the time since the last transaction it
// replayed was committed on the primary. A replica that lost its primary
// (nothing received, nothing to replay) reads 0: only the primary knows
// what it has not sent.
func ReplicaLag(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}) (time.Duration, error) {
	return ScanReplicaLag(q.QueryRow(ctx, ReplicaLagSQL))
}

// ReplicaLagSQL is ReplicaLag's statement, for a caller that sends it in a
// batch of its own and reads its answer with ScanReplicaLag.
const ReplicaLagSQL = `SELECT CASE
		WHEN NOT pg_is_in_recovery() THEN 0
		WHEN pg_last_wal_receive_lsn() IS NOT NULL AND pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0
		ELSE COALESCE(EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp()), 0)::float8 END`

// ScanReplicaLag reads the answer of ReplicaLagSQL.
func ScanReplicaLag(row pgx.Row) (time.Duration, error) {
	var seconds float64
	if err := row.Scan(&seconds); err != nil {
		return 0, fmt.Errorf("read replica lag: %w", err)
	}
	return time.Duration(max(seconds, 0) * float64(time.Second)), nil
}

// WaitReplayed waits until the database behind reads has replayed the WAL
// primary had written when WaitReplayed was called (at once when both are
// the same pool, or reads is a primary), so that what reads answers next
// includes every transaction committed on primary before the call. It
// polls every 50 ms until ctx ends.
func WaitReplayed(ctx context.Context, primary, reads *pgxpool.Pool) error {
	if primary == reads {
		return nil
	}
	var lsn string
	if err := primary.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		return fmt.Errorf("read the primary's wal position: %w", err)
	}
	for {
		var done bool
		err := reads.QueryRow(ctx, `SELECT NOT pg_is_in_recovery() OR pg_last_wal_replay_lsn() >= $1::pg_lsn`, lsn).Scan(&done)
		if err != nil {
			return fmt.Errorf("read the replica's replay position: %w", err)
		}
		if done {
			return nil
		}
		t := time.NewTimer(50 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("wait for the replica to replay %s: %w", lsn, ctx.Err())
		case <-t.C:
		}
	}
}

// EmbeddedMigrations returns the folder dir of an embedded FS as Migrate
// wants it (the migrations at its root). It panics when dir is missing: for
// an embed.FS that is a build mistake, not a runtime condition.
func EmbeddedMigrations(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("embedded migrations %s: %v", dir, err))
	}
	return sub
}

// MigrateOption changes how Migrate runs.
type MigrateOption func(*migrateOptions)

type migrateOptions struct {
	log *slog.Logger
}

// WithLogger makes Migrate log to log (slog.Default otherwise): that it waits
// for another replica, and that the schema is ahead of the binary.
func WithLogger(log *slog.Logger) MigrateOption {
	return func(o *migrateOptions) { o.log = log }
}

// DirtyError is Migrate's error when the schema's version is marked dirty: a
// migration was interrupted or failed, and an operator has to say whether it
// applied (docs/migrations.md, "Killed mid-migration").
type DirtyError struct {
	// Schema is the service's schema.
	Schema string
	// Version is the dirty version: the migration that did not finish.
	Version int
	// Previous is the version before it among the embedded migrations (0:
	// none, or unknown to this binary).
	Previous int
}

// Error says what happened and how to fix it.
func (e *DirtyError) Error() string {
	before := "the version before it"
	if e.Previous > 0 {
		before = strconv.Itoa(e.Previous)
	}
	return fmt.Sprintf("schema %s is at version %d marked dirty: migration %d was interrupted or failed and may or may not have applied; "+
		"no replica starts until an operator checks what it did and runs "+
		"UPDATE %s.schema_migrations SET version = <%d if it applied, %s if not>, dirty = false "+
		"(docs/migrations.md, \"Killed mid-migration\")",
		e.Schema, e.Version, e.Version, pgx.Identifier{e.Schema}.Sanitize(), e.Version, before)
}

// Lock waits: the first retry after lockRetryMin, doubling up to lockRetryMax;
// a replica still waiting says so every lockLogEvery.
const (
	lockRetryMin = 100 * time.Millisecond
	lockRetryMax = 2 * time.Second
	lockLogEvery = 30 * time.Second
)

// Migrate applies the migrations in the root of migrations to schema,
// creating the schema when it is missing.
//
// Several replicas may call it at once: one migrates while the others wait
// for golang-migrate's advisory lock of the schema, for as long as it takes,
// then find nothing to do. The wait ends when ctx does (SIGTERM), with
// ctx.Err(); cancelling ctx while migrating stops after the running
// migration.
//
// A database whose version is above the newest embedded migration (a newer
// release has migrated; this binary is older) is left as it is: Migrate logs
// a warning and returns nil, since expand/contract keeps the newer schema
// working for the previous release. A dirty version is a *DirtyError.
func Migrate(ctx context.Context, url, schema string, migrations fs.FS, opts ...MigrateOption) error {
	o := migrateOptions{log: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	log := o.log.With("schema", schema)
	// The pool's parser takes the pool_* settings Open honours (e.g.
	// pool_max_conns) out of the URL; a plain connection would send them to
	// the server as unknown parameters.
	poolCfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	connCfg := poolCfg.ConnConfig
	if err := ensureSchema(ctx, connCfg.Copy(), schema); err != nil {
		return err
	}
	connCfg.RuntimeParams["search_path"] = schema
	// One connection: the session that takes the advisory lock below is the
	// one golang-migrate's driver then uses. Session advisory locks stack, so
	// the driver's own pg_advisory_lock calls (which wait with no timeout and
	// no context) return at once, and every other replica waits here, in a
	// loop that ctx ends. Closing the connection (m.Close, db.Close) releases
	// the lock.
	db := stdlib.OpenDB(*connCfg)
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)

	dbName, err := lockMigrations(ctx, db, schema, log)
	if err != nil {
		return err
	}
	driver, err := migratepgx.WithInstance(db, &migratepgx.Config{
		DatabaseName: dbName, SchemaName: schema, MigrationsTable: migratepgx.DefaultMigrationsTable,
	})
	if err != nil {
		return fmt.Errorf("migration driver for schema %s: %w", schema, err)
	}
	src, err := iofs.New(migrations, ".")
	if err != nil {
		return fmt.Errorf("read migrations of schema %s: %w", schema, err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "pgx5", driver)
	if err != nil {
		return fmt.Errorf("prepare migrations of schema %s: %w", schema, err)
	}
	defer m.Close()

	version, dirty, err := m.Version()
	switch {
	case errors.Is(err, migrate.ErrNilVersion):
		// A fresh schema: everything to apply.
	case err != nil:
		return fmt.Errorf("read migration version of schema %s: %w", schema, err)
	case dirty:
		derr := &DirtyError{Schema: schema, Version: int(version)}
		if prev, err := src.Prev(version); err == nil {
			derr.Previous = int(prev)
		}
		return derr
	default:
		newest, err := newestVersion(src)
		if err != nil {
			return fmt.Errorf("read migrations of schema %s: %w", schema, err)
		}
		if version > newest {
			log.WarnContext(ctx, "the schema is ahead of this binary's migrations (a newer release migrated it); starting without migrating",
				"schema_version", version, "newest_embedded", newest)
			return nil
		}
	}

	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			m.GracefulStop <- true
		case <-done:
		}
	}()
	if err := m.Up(); err != nil && !errors.Is(err, migrate.ErrNoChange) {
		return fmt.Errorf("migrate schema %s: %w", schema, err)
	}
	return ctx.Err()
}

// lockMigrations takes golang-migrate's advisory lock of schema on db's only
// connection, retrying with backoff while another session holds it, and
// returns the database's name (part of the lock's key).
func lockMigrations(ctx context.Context, db *sql.DB, schema string, log *slog.Logger) (string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", fmt.Errorf("connect to migrate schema %s: %w", schema, err)
	}
	// Back to db's pool, still holding the lock, for the driver to take.
	defer conn.Close()
	var dbName string
	if err := conn.QueryRowContext(ctx, "SELECT current_database()").Scan(&dbName); err != nil {
		return "", fmt.Errorf("connect to migrate schema %s: %w", schema, err)
	}
	// The driver's key: database, schema and table names (see
	// migratepgx.Postgres.Lock).
	key, err := database.GenerateAdvisoryLockId(dbName, schema, migratepgx.DefaultMigrationsTable)
	if err != nil {
		return "", fmt.Errorf("migration lock of schema %s: %w", schema, err)
	}
	start := time.Now()
	lastLog := time.Time{}
	wait := lockRetryMin
	for {
		var got bool
		if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock($1::bigint)", key).Scan(&got); err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("wait for the migration lock of schema %s: %w", schema, ctx.Err())
			}
			return "", fmt.Errorf("take the migration lock of schema %s: %w", schema, err)
		}
		if got {
			if !lastLog.IsZero() {
				log.InfoContext(ctx, "took the migration lock", "waited", time.Since(start).Round(time.Millisecond).String())
			}
			return dbName, nil
		}
		if time.Since(lastLog) >= lockLogEvery {
			log.InfoContext(ctx, "waiting for another replica to finish migrating", "waited", time.Since(start).Round(time.Second).String())
			lastLog = time.Now()
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", fmt.Errorf("wait for the migration lock of schema %s: %w", schema, ctx.Err())
		case <-t.C:
		}
		wait = min(2*wait, lockRetryMax)
	}
}

// newestVersion returns the highest version among src's migrations (0 when
// there are none).
func newestVersion(src source.Driver) (uint, error) {
	v, err := src.First()
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	for {
		next, err := src.Next(v)
		if errors.Is(err, fs.ErrNotExist) {
			return v, nil
		}
		if err != nil {
			return 0, err
		}
		v = next
	}
}

// ensureSchema creates schema unless it exists. Concurrent creators race on
// the catalog's unique index, so a duplicate error counts as success.
func ensureSchema(ctx context.Context, cfg *pgx.ConnConfig, schema string) error {
	if schema == "" {
		return errors.New("ensure schema: empty schema name")
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect to create schema %s: %w", schema, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
	if err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && (pgErr.Code == "42P06" || pgErr.Code == "23505") {
			return nil
		}
		return fmt.Errorf("create schema %s: %w", schema, err)
	}
	return nil
}

// Querier runs statements: a pool, a connection, or a transaction (a
// pgx.Tx, or a connection inside a transaction its owner began itself).
type Querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// InTx runs fn in a transaction, committing when fn returns nil and rolling
// back otherwise. fn's error is returned as it is, so its apperr kind is kept,
// except that a statement of fn that lost a race (a serialization failure or
// a deadlock Postgres broke) becomes a Conflict, as Translate makes it: the
// caller's change was not made and can be tried again.
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(pgx.Tx) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer func() {
		// After a commit this is a no-op; after a failure it releases the
		// connection even when ctx is already cancelled.
		rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = tx.Rollback(rbCtx)
	}()
	if err := fn(tx); err != nil {
		if apperr.As(err) == nil && lostRace(err) {
			return Translate(err, "The record")
		}
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return Translate(fmt.Errorf("commit transaction: %w", err), "The record")
	}
	return nil
}

// lostRace reports whether err is a serialization failure or a deadlock.
func lostRace(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == codeSerialization || pgErr.Code == codeDeadlock)
}

// Unique-violation and related SQLSTATE codes.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
	codeCheckViolation      = "23514"
	codeSerialization       = "40001"
	codeDeadlock            = "40P01"
)

// Translate maps a driver error to an apperr kind, naming the thing concerned
// in the message (entity is the subject of a sentence, e.g. "The merchant"):
// pgx.ErrNoRows becomes NotFound ("The merchant was not found."), a unique
// violation becomes Conflict ("The merchant already exists."), and so do a
// serialization failure and a deadlock that Postgres broke by failing this
// transaction ("The merchant was changed by someone else. Reload and try
// again."). Any other error is returned unchanged, and nil stays nil.
func Translate(err error, entity string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows) {
		return apperr.New(apperr.KindNotFound, err, "%s was not found.", entity)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case codeUniqueViolation:
			return apperr.New(apperr.KindConflict, err, "%s already exists.", entity)
		case codeSerialization, codeDeadlock:
			return apperr.New(apperr.KindConflict, err, "%s was changed by someone else. Reload and try again.", entity)
		}
	}
	return err
}

// ConstraintViolation returns the SQLSTATE and constraint name of a unique,
// foreign-key or check violation in err's chain, for callers that want a
// message per constraint.
func ConstraintViolation(err error) (code, constraint string, ok bool) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return "", "", false
	}
	switch pgErr.Code {
	case codeUniqueViolation, codeForeignKeyViolation, codeCheckViolation:
		return pgErr.Code, pgErr.ConstraintName, true
	}
	return "", "", false
}
