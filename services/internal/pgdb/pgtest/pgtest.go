// Package pgtest gives tests a fresh, migrated Postgres schema of their own in
// the database named by PAYGATE_TEST_DATABASE_URL.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-migrate/migrate/v4/database"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/internal/pgdb"
)

// DefaultURL is used when PAYGATE_TEST_DATABASE_URL is unset.
const DefaultURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// URL returns PAYGATE_TEST_DATABASE_URL, or DefaultURL.
func URL() string {
	if u := os.Getenv("PAYGATE_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return DefaultURL
}

// Schema creates a randomly named schema, applies migrations to it (nil for
// none) and returns a pool bound to it together with a database URL whose
// search_path is that schema (for code under test that opens its own
// connections). The schema is dropped and the pool closed when the test ends.
func Schema(t testing.TB, migrations fs.FS) (*pgxpool.Pool, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	base := URL()
	schema := "test_" + randomHex(t, 8)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: parse %s: %v", base, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	schemaURL := u.String()

	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("pgtest: connect to drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("pgtest: drop schema %s: %v", schema, err)
		}
	})
	if migrations != nil {
		if err := pgdb.Migrate(ctx, base, schema, migrations); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	pool, err := pgdb.Open(ctx, base, schema)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool, schemaURL
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatalf("pgtest: random schema name: %v", err)
	}
	return hex.EncodeToString(b)
}

// HoldMigrationLock takes the migration lock of schema in the test database
// (golang-migrate's advisory lock, which pgdb.Migrate waits for) on a
// connection of its own, as a replica that is migrating holds it, and
// returns its release. The test's end releases it too. The schema need not
// exist.
func HoldMigrationLock(t testing.TB, schema string) (release func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, URL())
	if err != nil {
		t.Fatalf("pgtest: connect to hold the migration lock of %s: %v", schema, err)
	}
	var dbName string
	if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&dbName); err != nil {
		_ = conn.Close(ctx)
		t.Fatalf("pgtest: %v", err)
	}
	key, err := database.GenerateAdvisoryLockId(dbName, schema, migratepgx.DefaultMigrationsTable)
	if err != nil {
		_ = conn.Close(ctx)
		t.Fatalf("pgtest: migration lock of %s: %v", schema, err)
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1::bigint)", key); err != nil {
		_ = conn.Close(ctx)
		t.Fatalf("pgtest: take the migration lock of %s: %v", schema, err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			// Closing the session releases its advisory locks.
			if err := conn.Close(context.Background()); err != nil {
				t.Errorf("pgtest: release the migration lock of %s: %v", schema, err)
			}
		})
	}
	t.Cleanup(release)
	return release
}

// UpTo is migrations with only the files of versions up to version: the
// migrations of an earlier release, for tests of what a later one does to
// its schema.
func UpTo(migrations fs.FS, version int) fs.FS { return upTo{migrations, version} }

type upTo struct {
	fs.FS
	version int
}

func (u upTo) ReadDir(name string) ([]fs.DirEntry, error) {
	all, err := fs.ReadDir(u.FS, name)
	if err != nil {
		return nil, err
	}
	var kept []fs.DirEntry
	for _, e := range all {
		if n, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0]); err == nil && n <= u.version {
			kept = append(kept, e)
		}
	}
	return kept, nil
}
