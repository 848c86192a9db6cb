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
	"time"

	"github.com/golang-migrate/migrate/v4"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
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

// Migrate applies the migrations in the root of migrations to schema,
// creating the schema when it is missing. Several replicas may call it at
// once: golang-migrate serializes them with an advisory lock. Cancelling ctx
// stops it after the running migration.
func Migrate(ctx context.Context, url, schema string, migrations fs.FS) error {
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
	db := stdlib.OpenDB(*connCfg)
	defer db.Close()

	driver, err := migratepgx.WithInstance(db, &migratepgx.Config{SchemaName: schema})
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

// InTx runs fn in a transaction, committing when fn returns nil and rolling
// back otherwise. fn's error is returned as it is, so its apperr kind is kept.
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
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return Translate(fmt.Errorf("commit transaction: %w", err), "The record")
	}
	return nil
}

// Unique-violation and related SQLSTATE codes.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
	codeCheckViolation      = "23514"
	codeSerialization       = "40001"
)

// Translate maps a driver error to an apperr kind, naming the thing concerned
// in the message (entity is the subject of a sentence, e.g. "The merchant"):
// pgx.ErrNoRows becomes NotFound ("The merchant was not found."), a unique
// violation and a serialization failure become Conflict ("The merchant already
// exists." / "The merchant was changed by someone else. Reload and try
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
		case codeSerialization:
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
