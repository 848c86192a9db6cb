// Command bulkbench measures the filter-wide bulk actions (issue 29,
// docs/contracts-bulk.md) on a gateway schema of its own: the dry run over a
// filter matching a tenth of the table, beside the bare COUNT of the same
// rows, and a bulk requeue-polling run through the real batch path (items,
// journal entries, outbox events), beside the bare UPDATE of the same rows.
//
//	go run ./services/gateway/cmd/bulkbench -transactions 2000000
//
// The schema is migrated with the gateway's migrations, seeded with the demo
// data and loaded once; -drop removes it at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/bulk"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb"
)

type config struct {
	db, schema   string
	transactions int64
	runs         int
	requeueDays  int
	drop         bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bulkbench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var c config
	fs := flag.NewFlagSet("bulkbench", flag.ContinueOnError)
	fs.StringVar(&c.db, "db", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "Postgres URL")
	fs.StringVar(&c.schema, "schema", "gateway_bulkbench", "gateway schema of the benchmark (created, migrated, seeded, loaded)")
	fs.Int64Var(&c.transactions, "transactions", 10_000_000, "transactions in the table; a tenth are Pending (the filter)")
	fs.IntVar(&c.runs, "runs", 5, "dry runs per case, after one warm-up")
	fs.IntVar(&c.requeueDays, "requeue-days", 6, "the requeue run's filter: Pending transactions of the last N of 60 days")
	fs.BoolVar(&c.drop, "drop", false, "drop the schema at the end")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := pgdb.Migrate(ctx, c.db, c.schema, postgres.Migrations); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	pool, err := pgdb.Open(ctx, c.db, c.schema)
	if err != nil {
		return err
	}
	defer pool.Close()
	if c.drop {
		defer func() {
			_, _ = pool.Exec(context.WithoutCancel(ctx), "DROP SCHEMA "+pgx.Identifier{c.schema}.Sanitize()+" CASCADE")
		}()
	}
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if _, err := pool.Exec(ctx, `UPDATE providers SET supports_polling = true`); err != nil {
		return err
	}
	if err := load(ctx, pool, c, log); err != nil {
		return err
	}
	store := postgres.NewBulkRuns(pool)
	store.Enqueue = func(context.Context, pgx.Tx, int64) error { return nil }
	svc := bulk.NewService(store, bulk.Limits{Cap: func(context.Context) int { return 100_000_000 }, Rate: func(context.Context) int { return 1_000_000 }},
		nil, time.Now)
	host, _ := os.Hostname()
	fmt.Fprintf(out, "## Bulk actions (issue 29, services/gateway/cmd/bulkbench)\n\nRun %s on %s (%d CPUs), schema `%s`, %d transactions.\n\n",
		time.Now().UTC().Format(time.RFC3339), host, runtime.NumCPU(), c.schema, c.transactions)

	// Dry run: Pending (status 3) is a tenth of the table.
	op := bulk.Operator{UserID: 1, Username: "bench", Scope: merchant.Scope{All: true}}
	q := payment.ListQuery{Statuses: []string{"3"}}
	var matched int64
	dry := timeIt(c.runs, func() error {
		d, err := svc.DryRun(ctx, op, bulk.RequeuePolling, q)
		matched = d.Matched
		return err
	})
	bare := timeIt(c.runs, func() error {
		return pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE status = 3`).Scan(new(int64))
	})
	fmt.Fprintf(out, "| case | rows | p50 | max | ceiling p50 | ceiling max |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(out, "| dry run requeuePolling, statuses=3 (groups by status and collab + sample of 20) vs bare COUNT | %d | %s | %s | %s | %s |\n",
		matched, pct(dry, 50), pct(dry, 100), pct(bare, 50), pct(bare, 100))

	// Requeue: the Pending of the last requeueDays days, through Work.
	from := time.Now().Add(-time.Duration(c.requeueDays) * 24 * time.Hour).UTC()
	rq := payment.ListQuery{Statuses: []string{"3"}, From: from.Format(time.RFC3339Nano)}
	r, err := svc.Start(ctx, op, bulk.RequeuePolling, rq, "bench", 1<<40)
	if err != nil {
		return err
	}
	start := time.Now()
	for more := true; more; {
		if more, err = svc.Work(ctx, r.ID, time.Now().Add(time.Minute)); err != nil {
			return err
		}
	}
	took := time.Since(start)
	done, err := store.Run(ctx, r.ID)
	if err != nil {
		return err
	}
	start = time.Now()
	tag, err := pool.Exec(ctx, `UPDATE transactions SET next_poll_at = now(), poll_attempts = 0, updated_at = now()
		WHERE status = 3 AND created_at >= $1`, from)
	if err != nil {
		return err
	}
	bareTook := time.Since(start)
	fmt.Fprintf(out, "\n| case | rows | time | rows/s | ceiling time | ceiling rows/s |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(out, "| bulk requeuePolling run (batches of %d: lock, items, UPDATE, journal, outbox, progress) vs one bare UPDATE | %d | %s | **%.0f** | %s | %.0f |\n",
		bulk.BatchSize, done.Applied, took.Round(time.Millisecond), float64(done.Applied)/took.Seconds(), bareTook.Round(time.Millisecond),
		float64(tag.RowsAffected())/bareTook.Seconds())
	return nil
}

func timeIt(n int, fn func() error) []time.Duration {
	_ = fn() // warm-up
	var ds []time.Duration
	for range n {
		start := time.Now()
		if err := fn(); err != nil {
			panic(err)
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds
}

func pct(ds []time.Duration, p int) string {
	i := min(len(ds)-1, (len(ds)*p)/100)
	return ds[i].Round(time.Millisecond).String()
}

// load fills the table to c.transactions over the last 60 days, a tenth
// Pending with a provider id, the rest Success; one INSERT per 100,000.
func load(ctx context.Context, pool *pgxpool.Pool, c config, log *slog.Logger) error {
	var have int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transactions`).Scan(&have); err != nil {
		return err
	}
	start := time.Now()
	span := (60 * 24 * time.Hour).Seconds()
	for from := have + 1; from <= c.transactions; from += 100_000 {
		to := min(from+99_999, c.transactions)
		_, err := pool.Exec(ctx, `
			WITH cs AS (SELECT row_number() OVER (ORDER BY c.id) - 1 AS k, c.id, c.merchant_id, c.provider_id, m.name AS mn, p.name AS pn
				FROM collabs c JOIN merchants m ON m.id = c.merchant_id JOIN providers p ON p.id = c.provider_id ORDER BY c.id LIMIT 4)
			INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name, provider_name,
				pay_type_name, nonce, transaction_type, status, amount, currency, destination_amount, destination_currency,
				provider_transaction_id, created_at, updated_at)
			SELECT 'bb-' || i, cs.merchant_id, cs.id, cs.provider_id, 1, cs.mn, cs.pn, 'bench', 'bb-' || i, 1,
				CASE WHEN (i * 7919) % 10 = 0 THEN 3 ELSE 4 END, 10, 'PHP', 10, 'PHP', 'p-' || i, t.at, t.at
			FROM generate_series($1::bigint, $2::bigint) AS i
			JOIN cs ON cs.k = i % 4
			CROSS JOIN LATERAL (SELECT now() - make_interval(secs => ($3::double precision * ($4::bigint - i)) / $4::bigint) AS at) t`,
			from, to, span, c.transactions)
		if err != nil {
			return fmt.Errorf("load %d…%d: %w", from, to, err)
		}
		log.Info("loaded", "to", to, "elapsed", time.Since(start).Round(time.Second))
	}
	if have < c.transactions {
		if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) transactions`); err != nil {
			return err
		}
	}
	return nil
}
