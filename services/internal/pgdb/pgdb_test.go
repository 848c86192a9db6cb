package pgdb_test

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.uber.org/goleak"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

//go:embed testdata/migrations/*.sql
var migrationFiles embed.FS

func migrations(t testing.TB) fs.FS {
	t.Helper()
	sub, err := fs.Sub(migrationFiles, "testdata/migrations")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestMigrateIsIdempotentAndSchemaLocal(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	pool, schemaURL := pgtest.Schema(t, migrations(t))

	var schema string
	if err := pool.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	// A second run (another replica starting) changes nothing, with the
	// pool settings Open reads in the URL too.
	withPool := pgtest.URL() + "&pool_max_conns=8"
	if !strings.Contains(pgtest.URL(), "?") {
		withPool = pgtest.URL() + "?pool_max_conns=8"
	}
	if err := pgdb.Migrate(ctx, withPool, schema, migrations(t)); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	var version int
	if err := pool.QueryRow(ctx, "SELECT version FROM "+pgx.Identifier{schema, "schema_migrations"}.Sanitize()).Scan(&version); err != nil {
		t.Fatalf("migrations table in schema %s: %v", schema, err)
	}
	if version != 2 {
		t.Errorf("version = %d, want 2", version)
	}
	var tables int
	if err := pool.QueryRow(ctx,
		"SELECT count(*) FROM information_schema.tables WHERE table_schema = $1 AND table_name IN ('widgets', 'schema_migrations')",
		schema).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables != 2 {
		t.Errorf("tables in %s = %d, want 2", schema, tables)
	}
	// The URL pgtest hands out points at the same schema.
	conn, err := pgx.Connect(ctx, schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var viaURL string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&viaURL); err != nil {
		t.Fatal(err)
	}
	if viaURL != schema {
		t.Errorf("schema via URL = %q, want %q", viaURL, schema)
	}
}

func TestInTx(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, migrations(t))
	errBoom := errors.New("boom")

	tests := []struct {
		name    string
		id      int
		fn      func(tx pgx.Tx) error
		wantErr error
		wantRow bool
	}{
		{
			name: "commit",
			id:   1,
			fn: func(tx pgx.Tx) error {
				_, err := tx.Exec(context.Background(), "INSERT INTO widgets (id, name) VALUES (1, 'one')")
				return err
			},
			wantRow: true,
		},
		{
			name: "error rolls back",
			id:   2,
			fn: func(tx pgx.Tx) error {
				if _, err := tx.Exec(context.Background(), "INSERT INTO widgets (id, name) VALUES (2, 'two')"); err != nil {
					return err
				}
				return errBoom
			},
			wantErr: errBoom,
		},
		{
			name: "apperr kind survives",
			id:   3,
			fn: func(tx pgx.Tx) error {
				if _, err := tx.Exec(context.Background(), "INSERT INTO widgets (id, name) VALUES (3, 'three')"); err != nil {
					return err
				}
				return apperr.Invalid("Name is too short.")
			},
			wantErr: &apperr.Error{Kind: apperr.KindInvalid},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t)
			err := pgdb.InTx(ctx, pool, tt.fn)
			switch want := tt.wantErr.(type) {
			case nil:
				if err != nil {
					t.Fatalf("InTx: %v", err)
				}
			case *apperr.Error:
				if apperr.KindOf(err) != want.Kind {
					t.Fatalf("InTx error kind = %q, want %q (%v)", apperr.KindOf(err), want.Kind, err)
				}
			default:
				if !errors.Is(err, want) {
					t.Fatalf("InTx error = %v, want %v", err, want)
				}
			}
			var n int
			if err := pool.QueryRow(ctx, "SELECT count(*) FROM widgets WHERE id = $1", tt.id).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if got := n == 1; got != tt.wantRow {
				t.Errorf("row %d present = %v, want %v", tt.id, got, tt.wantRow)
			}
		})
	}
}

// TestInTxDeadlock runs two transactions that update the same two widgets in
// opposite orders. Postgres breaks the deadlock by failing one of them
// (40P01); InTx returns that one as a Conflict with a sentence the caller can
// act on, rolls it back, and the other commits.
func TestInTxDeadlock(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, migrations(t))
	ctx := testContext(t)
	if _, err := pool.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (21, 'a'), (22, 'b')"); err != nil {
		t.Fatal(err)
	}

	var holding sync.WaitGroup
	holding.Add(2)
	swap := func(first, second int, name string) error {
		return pgdb.InTx(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "UPDATE widgets SET name = $2 || id WHERE id = $1", first, name); err != nil {
				holding.Done()
				return fmt.Errorf("update widget %d: %w", first, err)
			}
			holding.Done()
			holding.Wait() // both hold their first row: the second updates wait for each other
			if _, err := tx.Exec(ctx, "UPDATE widgets SET name = $2 || id WHERE id = $1", second, name); err != nil {
				return fmt.Errorf("update widget %d: %w", second, err)
			}
			return nil
		})
	}
	errs := make(chan error, 2)
	go func() { errs <- swap(21, 22, "x") }()
	go func() { errs <- swap(22, 21, "y") }()
	var failed []error
	for range 2 {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) != 1 {
		t.Fatalf("errors = %v, want exactly one transaction to lose the deadlock", failed)
	}
	err := failed[0]
	if apperr.KindOf(err) != apperr.KindConflict {
		t.Fatalf("kind = %q, want conflict (%v)", apperr.KindOf(err), err)
	}
	if got, want := apperr.As(err).Message, "The record was changed by someone else. Reload and try again."; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "40P01" {
		t.Errorf("error does not wrap the deadlock: %v", err)
	}
	// The winner's names are on both rows: the loser's first update was
	// rolled back.
	var names string
	if err := pool.QueryRow(ctx, "SELECT string_agg(DISTINCT left(name, 1), '') FROM widgets WHERE id IN (21, 22)").Scan(&names); err != nil {
		t.Fatal(err)
	}
	if names != "x" && names != "y" {
		t.Errorf("names after the deadlock = %q, want one transaction's name on both rows", names)
	}
}

func TestTranslate(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, migrations(t))
	ctx := testContext(t)
	if _, err := pool.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (10, 'ten')"); err != nil {
		t.Fatal(err)
	}

	_, dupErr := pool.Exec(ctx, "INSERT INTO widgets (id, name) VALUES (11, 'ten')")
	var name string
	noRowsErr := pool.QueryRow(ctx, "SELECT name FROM widgets WHERE id = 999").Scan(&name)
	otherErr := errors.New("connection reset")

	tests := []struct {
		name    string
		err     error
		kind    apperr.Kind
		message string
	}{
		{"no rows", noRowsErr, apperr.KindNotFound, "The widget was not found."},
		{"unique violation", dupErr, apperr.KindConflict, "The widget already exists."},
		{"other errors pass through", otherErr, apperr.KindInternal, ""},
		{"nil", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := pgdb.Translate(tt.err, "The widget")
			if apperr.KindOf(got) != tt.kind {
				t.Fatalf("kind = %q, want %q (%v)", apperr.KindOf(got), tt.kind, got)
			}
			if tt.message != "" && apperr.As(got).Message != tt.message {
				t.Errorf("message = %q, want %q", apperr.As(got).Message, tt.message)
			}
			if tt.err != nil && !errors.Is(got, tt.err) {
				t.Errorf("translated error does not wrap the driver error")
			}
		})
	}
	if code, constraint, ok := pgdb.ConstraintViolation(dupErr); !ok || code != "23505" || constraint != "widgets_name_key" {
		t.Errorf("ConstraintViolation = %q %q %v", code, constraint, ok)
	}
}
