package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// beforePartitioning is the migrations up to 0023: the schema of the last
// release whose transactions table is one unpartitioned table.
func beforePartitioning() fs.FS { return pgtest.UpTo(postgres.Migrations, 23) }

// copyRows is how many transactions the migration test loads before it
// migrates: PAYGATE_PARTITION_COPY_ROWS (bench/RESULTS.md records a run with
// 3,000,000), or 100,000 in the regular suite.
func copyRows(t *testing.T) int {
	if s := os.Getenv("PAYGATE_PARTITION_COPY_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1000 {
			t.Fatalf("PAYGATE_PARTITION_COPY_ROWS=%q: want a number of rows, at least 1000", s)
		}
		return n
	}
	return 100_000
}

// TestPartitionMigrationOnACopy migrates a populated unpartitioned
// transactions table (the last release's schema) to the partitioned one
// while a writer keeps inserting payments the way that release did, and
// checks that no write failed or waited long, that no row or key was lost,
// that the old table's indexes were adopted rather than rebuilt, and that
// uniqueness still holds on both sides of the switch.
func TestPartitionMigrationOnACopy(t *testing.T) {
	t.Parallel()
	n := copyRows(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	pool, _ := pgtest.Schema(t, beforePartitioning())
	schema := pool.Config().ConnConfig.RuntimeParams["search_path"]
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	var collab, merchant, provider, payType int32
	if err := pool.QueryRow(ctx, `SELECT c.id, c.merchant_id, c.provider_id, cpt.pay_type_id
		FROM collabs c JOIN collab_pay_types cpt ON cpt.collab_id = c.id ORDER BY c.id LIMIT 1`).
		Scan(&collab, &merchant, &provider, &payType); err != nil {
		t.Fatal(err)
	}

	// The copy: n transactions over the last 120 days, a journal entry for
	// every tenth.
	start := time.Now()
	if _, err := pool.Exec(ctx, `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, transaction_type, status, amount, currency,
			destination_amount, destination_currency, created_at, updated_at)
		SELECT 'COPY-' || i, $2, $3, $4, $5, 'm', 'p', 'GCash', 'copy-' || i, 1 + i % 2, i % 5 - 2, 1 + i % 1000,
			'PHP', 1 + i % 1000, 'PHP', now() - (i * (interval '120 days' / $1)), now() - (i * (interval '120 days' / $1))
		FROM generate_series(1, $1) i`, n, merchant, collab, provider, payType); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO transaction_logs (transaction_id, at, stage, level, message)
		SELECT id, created_at, 'Initialization', 'Information', 'copied' FROM transactions WHERE id % 10 = 0`); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `VACUUM ANALYZE transactions`); err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d transactions in %s", n, time.Since(start).Round(time.Millisecond))
	before := indexOIDs(t, pool, "transactions")

	// The last release's writer, running through the migration: its
	// INSERT is the one statement both schemas take.
	var (
		wg       sync.WaitGroup
		written  atomic.Int64
		stall    atomic.Int64
		writeErr error
	)
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			began := time.Now()
			_, err := pool.Exec(ctx, `
				INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
					provider_name, pay_type_name, nonce, transaction_type, status, amount, currency,
					destination_amount, destination_currency, created_at, updated_at)
				VALUES ($1, $2, $3, $4, $5, 'm', 'p', 'GCash', $1, 1, 0, 10, 'PHP', 10, 'PHP', now(), now())`,
				"LIVE-"+strconv.Itoa(i), merchant, collab, provider, payType)
			if err != nil {
				writeErr = err
				return
			}
			written.Add(1)
			if d := int64(time.Since(began)); d > stall.Load() {
				stall.Store(d)
			}
		}
	}()
	time.Sleep(200 * time.Millisecond)
	start = time.Now()
	if err := pgdb.Migrate(ctx, pgtest.URL(), schema, postgres.Migrations); err != nil {
		close(stop)
		wg.Wait()
		t.Fatalf("migrate: %v", err)
	}
	took := time.Since(start)
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	if writeErr != nil {
		t.Fatalf("a write during the migration failed: %v", writeErr)
	}
	t.Logf("migrated %d rows in %s; %d writes meanwhile, the slowest %s", n, took.Round(time.Millisecond),
		written.Load(), time.Duration(stall.Load()).Round(time.Millisecond))
	if written.Load() < 10 {
		t.Fatalf("only %d writes during the migration: the writer did not run alongside it", written.Load())
	}
	if d := time.Duration(stall.Load()); d > 3*time.Second {
		t.Errorf("a write waited %s during the migration, want the switch's few milliseconds (at most 3 s on a loaded machine)", d)
	}

	var kind string
	if err := pool.QueryRow(ctx, `SELECT relkind::text FROM pg_class WHERE oid = 'transactions'::regclass`).Scan(&kind); err != nil {
		t.Fatal(err)
	}
	if kind != "p" {
		t.Fatalf("transactions has relkind %q after the migration, want p (partitioned)", kind)
	}
	var rows, keys, legacy int64
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM transactions), (SELECT count(*) FROM transaction_keys),
		(SELECT count(*) FROM transactions_legacy)`).Scan(&rows, &keys, &legacy); err != nil {
		t.Fatal(err)
	}
	if want := int64(n) + written.Load(); rows != want || keys != want || legacy != want {
		t.Errorf("after the migration: %d transactions, %d keys, %d in the legacy partition; want %d of each", rows, keys, legacy, want)
	}
	// ATTACH adopted the old table's indexes: the legacy partition's
	// indexes are the very ones it had (rebuilding them would have held the
	// table for minutes at scale).
	after := indexOIDs(t, pool, "transactions_legacy")
	for name, oid := range before {
		legacyName := strings.Replace(name, "transactions_", "transactions_legacy_", 1)
		if name == "transactions_reference_key" || name == "transactions_nonce_merchant_key" {
			legacyName = name // kept for the previous release's error handling
		}
		if after[legacyName] != oid {
			t.Errorf("index %s (oid %d) is not the legacy partition's %s (oid %d): it was rebuilt, not adopted", name, oid, legacyName, after[legacyName])
		}
	}
	// Beside them: 0024's (id, created_at) and 0033's open (created_at, id)
	// for the radar. 0034's bulk index is ON ONLY: built per month by hand.
	if len(after) != len(before)+2 {
		t.Errorf("the legacy partition has %d indexes, the old table had %d and 0024 and 0033 added one each: %v vs %v", len(after), len(before), after, before)
	}

	// Uniqueness across partitions: a reused nonce or reference fails, in
	// the legacy range and in a monthly partition alike.
	insert := func(ref, nonce string, at time.Time) error {
		_, err := pool.Exec(ctx, `
			INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
				provider_name, pay_type_name, nonce, transaction_type, status, amount, currency,
				destination_amount, destination_currency, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, 'm', 'p', 'GCash', $6, 1, 0, 10, 'PHP', 10, 'PHP', $7, $7)`,
			ref, merchant, collab, provider, payType, nonce, at)
		return err
	}
	var until time.Time
	if err := pool.QueryRow(ctx, `SELECT legacy_until FROM transaction_partitioning`).Scan(&until); err != nil {
		t.Fatal(err)
	}
	later := until.Add(24 * time.Hour) // a monthly partition's
	for _, c := range []struct {
		name, ref, nonce string
		at               time.Time
	}{
		{"nonce of an old row, in a new month", "NEW-1", "copy-7", later},
		{"reference of an old row, in a new month", "COPY-7", "new-1", later},
		{"nonce of an old row, before the bound", "NEW-2", "copy-8", time.Now()},
	} {
		var pgErr *pgconn.PgError
		if err := insert(c.ref, c.nonce, c.at); !errors.As(err, &pgErr) || pgErr.Code != "23505" {
			t.Errorf("%s: err = %v, want a unique violation (23505)", c.name, err)
		}
	}
	if err := insert("NEW-3", "new-3", later); err != nil {
		t.Fatalf("a new transaction in a monthly partition: %v", err)
	}
	if err := insert("NEW-4", "new-3", later.Add(time.Hour)); err == nil {
		t.Error("a nonce reused within the monthly partitions was accepted")
	}
	var where string
	if err := pool.QueryRow(ctx, `SELECT tableoid::regclass::text FROM transactions WHERE reference_id = 'NEW-3'`).Scan(&where); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(where, "transactions_2") {
		t.Errorf("a transaction after legacy_until went to %s, want its month's partition", where)
	}
	// The journal follows its transaction's key.
	var orphans int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transaction_logs l WHERE NOT EXISTS (SELECT 1 FROM transaction_keys k WHERE k.id = l.transaction_id)`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d journal entries have no key", orphans)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM transactions WHERE reference_id = 'COPY-10'`); err != nil {
		t.Fatal(err)
	}
	var left int64
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM transaction_keys WHERE reference_id = 'COPY-10') +
		(SELECT count(*) FROM transaction_logs l JOIN transaction_keys k ON k.id = l.transaction_id WHERE k.reference_id = 'COPY-10')`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("deleting a transaction left %d of its key and journal rows", left)
	}
}

// indexOIDs is the indexes of table by name.
func indexOIDs(t *testing.T, pool *pgxpool.Pool, table string) map[string]uint32 {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT c.relname, c.oid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = $1::regclass`, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]uint32{}
	for rows.Next() {
		var name string
		var oid uint32
		if err := rows.Scan(&name, &oid); err != nil {
			t.Fatal(err)
		}
		out[name] = oid
	}
	if err := rows.Err(); err != nil {
		t.Fatal(fmt.Errorf("indexes of %s: %w", table, err))
	}
	return out
}
