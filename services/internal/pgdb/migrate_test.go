package pgdb_test

import (
	"bytes"
	"context"
	"database/sql"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

//go:embed testdata/slow/*.sql
var slowFiles embed.FS

// slowMigrations record each run in a table runs; the second takes a second.
func slowMigrations(t testing.TB) fs.FS {
	t.Helper()
	sub, err := fs.Sub(slowFiles, "testdata/slow")
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

// logBuffer collects what a logger writes, for tests that wait for a line.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *logBuffer) logger() *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) }

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func schemaOf(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var schema string
	if err := pool.QueryRow(context.Background(), "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return schema
}

func versionOf(t *testing.T, pool *pgxpool.Pool, schema string) (version int, dirty bool) {
	t.Helper()
	if err := pool.QueryRow(context.Background(),
		"SELECT version, dirty FROM "+pgx.Identifier{schema, "schema_migrations"}.Sanitize()).Scan(&version, &dirty); err != nil {
		t.Fatal(err)
	}
	return version, dirty
}

func setVersion(t *testing.T, pool *pgxpool.Pool, schema string, version int, dirty bool) {
	t.Helper()
	if _, err := pool.Exec(context.Background(),
		"UPDATE "+pgx.Identifier{schema, "schema_migrations"}.Sanitize()+" SET version = $1, dirty = $2", version, dirty); err != nil {
		t.Fatal(err)
	}
}

// Replicas starting at the same moment on a fresh schema: one applies each
// file once, the others wait (longer than nothing, shorter than forever) and
// all of them return nil.
func TestMigrateConcurrentReplicasApplyOnce(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	pool, _ := pgtest.Schema(t, nil)
	schema := schemaOf(t, pool)

	const replicas = 3
	var logs logBuffer
	errs := make(chan error, replicas)
	start := make(chan struct{})
	for range replicas {
		go func() {
			<-start
			errs <- pgdb.Migrate(ctx, pgtest.URL(), schema, slowMigrations(t), pgdb.WithLogger(logs.logger()))
		}()
	}
	close(start)
	for range replicas {
		if err := <-errs; err != nil {
			t.Errorf("Migrate: %v", err)
		}
	}
	var runs, files int
	if err := pool.QueryRow(ctx, "SELECT count(*), count(DISTINCT file) FROM runs").Scan(&runs, &files); err != nil {
		t.Fatal(err)
	}
	if runs != 2 || files != 2 {
		t.Errorf("runs = %d of %d files, want each of 2 files once", runs, files)
	}
	if v, dirty := versionOf(t, pool, schema); v != 2 || dirty {
		t.Errorf("version = %d (dirty %v), want 2", v, dirty)
	}
	if !strings.Contains(logs.String(), "waiting for another replica") {
		t.Logf("no replica had to wait (they did not overlap); logs:\n%s", logs.String())
	}
}

// holdLock takes the schema's migration lock the way golang-migrate does (a
// replica of a release without this package's loop, or one that is
// migrating), and returns its release.
func holdLock(t *testing.T, schemaURL, schema string) func() {
	t.Helper()
	db, err := sql.Open("pgx", schemaURL)
	if err != nil {
		t.Fatal(err)
	}
	drv, err := migratepgx.WithInstance(db, &migratepgx.Config{SchemaName: schema})
	if err != nil {
		_ = db.Close()
		t.Fatal(err)
	}
	if err := drv.Lock(); err != nil {
		_ = drv.Close()
		t.Fatal(err)
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			if err := drv.Unlock(); err != nil {
				t.Errorf("unlock: %v", err)
			}
			_ = drv.Close()
		})
	}
	t.Cleanup(release)
	return release
}

// A replica that finds the lock taken waits, says so, and stops waiting as
// soon as its context ends (SIGTERM) with the context's error.
func TestMigrateWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	pool, schemaURL := pgtest.Schema(t, migrations(t))
	schema := schemaOf(t, pool)
	holdLock(t, schemaURL, schema)

	var logs logBuffer
	ctx, cancel := context.WithCancel(testContext(t))
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- pgdb.Migrate(ctx, pgtest.URL(), schema, migrations(t), pgdb.WithLogger(logs.logger())) }()
	waitFor(t, 10*time.Second, "the waiting log line", func() bool {
		return strings.Contains(logs.String(), "waiting for another replica to finish migrating")
	})
	select {
	case err := <-done:
		t.Fatalf("Migrate returned while the lock was held: %v", err)
	default:
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Migrate after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("Migrate still waiting 3s after its context was cancelled")
	}
}

// A replica that finds the lock taken goes on once it is released (there is
// no lock timeout to give up after).
func TestMigrateWaitsForTheLock(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	pool, schemaURL := pgtest.Schema(t, nil)
	schema := schemaOf(t, pool)
	if err := pgdb.Migrate(ctx, pgtest.URL(), schema, firstFileOnly(migrations(t))); err != nil {
		t.Fatal(err)
	}
	release := holdLock(t, schemaURL, schema)

	var logs logBuffer
	done := make(chan error, 1)
	go func() { done <- pgdb.Migrate(ctx, pgtest.URL(), schema, migrations(t), pgdb.WithLogger(logs.logger())) }()
	waitFor(t, 10*time.Second, "the waiting log line", func() bool {
		return strings.Contains(logs.String(), "waiting for another replica")
	})
	release()
	if err := <-done; err != nil {
		t.Fatalf("Migrate after the lock was released: %v", err)
	}
	if !strings.Contains(logs.String(), "took the migration lock") {
		t.Errorf("logs say nothing of taking the lock:\n%s", logs.String())
	}
	if v, dirty := versionOf(t, pool, schema); v != 2 || dirty {
		t.Errorf("version = %d (dirty %v), want 2", v, dirty)
	}
}

// firstFileOnly is migrations with only its first file: an older release.
func firstFileOnly(m fs.FS) fs.FS { return pgtest.UpTo(m, 1) }

// An older binary (fewer migrations than the schema's version) starts with a
// warning and leaves the schema as it is.
func TestMigrateSchemaAheadOfBinaryStarts(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	pool, _ := pgtest.Schema(t, migrations(t)) // version 2: the newer release
	schema := schemaOf(t, pool)

	var logs logBuffer
	if err := pgdb.Migrate(ctx, pgtest.URL(), schema, firstFileOnly(migrations(t)), pgdb.WithLogger(logs.logger())); err != nil {
		t.Fatalf("Migrate of the older release: %v", err)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "ahead of this binary") ||
		!strings.Contains(logs.String(), "schema_version=2") || !strings.Contains(logs.String(), "newest_embedded=1") {
		t.Errorf("no warning about the schema ahead:\n%s", logs.String())
	}
	if v, dirty := versionOf(t, pool, schema); v != 2 || dirty {
		t.Errorf("version = %d (dirty %v), want 2 untouched", v, dirty)
	}
}

// A dirty version refuses every start with an error that names the version
// and the fix.
func TestMigrateDirtyVersionRefuses(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	pool, _ := pgtest.Schema(t, migrations(t))
	schema := schemaOf(t, pool)
	setVersion(t, pool, schema, 2, true)

	for _, tc := range []struct {
		name       string
		migrations fs.FS
	}{
		{"same release", migrations(t)},
		{"older release", firstFileOnly(migrations(t))},
	} {
		err := pgdb.Migrate(ctx, pgtest.URL(), schema, tc.migrations)
		var dirty *pgdb.DirtyError
		if !errors.As(err, &dirty) {
			t.Fatalf("%s: Migrate = %v, want a *pgdb.DirtyError", tc.name, err)
		}
		if dirty.Schema != schema || dirty.Version != 2 {
			t.Errorf("%s: DirtyError = %+v", tc.name, dirty)
		}
		for _, want := range []string{"version 2 marked dirty", "UPDATE " + pgx.Identifier{schema}.Sanitize() + ".schema_migrations SET version = <2 if it applied", "dirty = false", "docs/migrations.md"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not say %q", tc.name, err, want)
			}
		}
	}
	if !strings.Contains(pgdb.Migrate(ctx, pgtest.URL(), schema, migrations(t)).Error(), "1 if not") {
		t.Error("the error does not name the previous version")
	}
	if v, dirty := versionOf(t, pool, schema); v != 2 || !dirty {
		t.Errorf("version = %d (dirty %v), want 2 dirty, untouched", v, dirty)
	}
}
