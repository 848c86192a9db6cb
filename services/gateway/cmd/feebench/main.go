// Command feebench measures the fees of issue 17 (docs/contracts-fees.md)
// on a gateway schema of its own (default gateway_feebench in a database of
// its own, feebench: CREATE DATABASE feebench first), each figure beside a
// bare ceiling measured in the same run:
//
//   - list: fee.Service.List (the scope rule, postgres.Fees' count and
//     page) over 1,000,000 fees, for an admin (no filter, a collab, a
//     currency and state, a deep page) and a merchant user (its collabs'
//     fees and the global ones); the ceiling is the same two statements
//     (the count, a sum of fee_counts or a count of rows, then the page)
//     sent as plain SQL on one pgx connection;
//   - preview: fee.Service.Preview over 10,000,000 transactions (18 months,
//     the last 30 days ≈ 5 %) with a realistic fee table (the synthetic
//     million is deleted first: no deployment has a million fees on four
//     collabs), for an edit of a fee of the busiest collab and for a new
//     global PHP fee (every collab); the ceiling is the cheapest read of the
//     same rows: count and sum of the applied fees of the window's
//     transactions of that currency (and collab), grouped by currency.
//
// The schema is migrated with the gateway's migrations and seeded with the
// demo merchants, providers and collabs; the transactions are generated in
// SQL (INSERT … SELECT generate_series) the first time, with the
// transactions' secondary indexes dropped but the ones the preview reads
// (migration 0022's transactions_fee_preview_idx and the collab index),
// in short transactions of 100,000 rows: the schema only serves this
// benchmark. Run again, it reuses what is
// there. -drop removes the schema at the end.
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
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/fee"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb"
)

type config struct {
	db, schema   string
	transactions int64
	fees         int64
	requests     int
	previewRuns  int
	drop         bool
	listOnly     bool
	previewOnly  bool
	loadBatch    int64
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "feebench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	var c config
	fs := flag.NewFlagSet("feebench", flag.ContinueOnError)
	fs.StringVar(&c.db, "db", "postgres://postgres@127.0.0.1:5432/feebench?sslmode=disable", "Postgres URL: a database of its own, so that its long reads and loads never hold back the CREATE INDEX CONCURRENTLY of other schemas' migrations")
	fs.StringVar(&c.schema, "schema", "gateway_feebench", "gateway schema of the benchmark (created, migrated, seeded)")
	fs.Int64Var(&c.transactions, "transactions", 10_000_000, "transactions to have in the schema")
	fs.Int64Var(&c.fees, "fees", 1_000_000, "fees for the list cases")
	fs.IntVar(&c.requests, "requests", 30, "calls per list case, after one warm-up")
	fs.IntVar(&c.previewRuns, "preview-runs", 10, "calls per preview case, after one warm-up")
	fs.Int64Var(&c.loadBatch, "batch", 100_000, "transactions per INSERT (one short transaction each) while loading")
	fs.BoolVar(&c.drop, "drop", false, "drop the schema at the end")
	fs.BoolVar(&c.listOnly, "list-only", false, "measure the list only")
	fs.BoolVar(&c.previewOnly, "preview-only", false, "measure the preview only")
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
			if _, err := pool.Exec(context.WithoutCancel(ctx), "DROP SCHEMA "+pgx.Identifier{c.schema}.Sanitize()+" CASCADE"); err != nil {
				log.Error("drop schema", "err", err)
			}
		}()
	}
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	svc := fee.NewService(postgres.NewFees(pool), time.Now)

	fmt.Fprintf(out, "## Fees (issue 17, services/gateway/cmd/feebench)\n\n")
	fmt.Fprintf(out, "Run %s on %s, schema `%s`.\n\n", time.Now().UTC().Format(time.RFC3339), hostDescription(), c.schema)
	if !c.previewOnly {
		if err := loadFees(ctx, pool, c.fees, log); err != nil {
			return err
		}
		if err := listCases(ctx, pool, svc, c, out); err != nil {
			return err
		}
	}
	if !c.listOnly {
		if err := loadTransactions(ctx, pool, c, log); err != nil {
			return err
		}
		if err := previewCases(ctx, pool, svc, c, out); err != nil {
			return err
		}
	}
	return nil
}

func hostDescription() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s (%d CPUs)", host, runtime.NumCPU())
}

// loadFees makes the fees table hold n synthetic fees (ids above the demo's),
// spread over the demo collabs, global, the six currencies, both types, the
// pay types and amount ranges; 90 % enabled.
func loadFees(ctx context.Context, pool *pgxpool.Pool, n int64, log *slog.Logger) error {
	var have int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM fees`).Scan(&have); err != nil {
		return err
	}
	if have >= n {
		return nil
	}
	log.Info("loading fees", "have", have, "want", n)
	rows, err := pool.Query(ctx, `SELECT id FROM collabs ORDER BY id LIMIT 4`)
	if err != nil {
		return err
	}
	collabs, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return err
	}
	// Each row would move the configuration version at commit (migration
	// 0011's row trigger): a bulk load of a benchmark's rows does not.
	if _, err := pool.Exec(ctx, `ALTER TABLE fees DISABLE TRIGGER fees_config_version`); err != nil {
		return err
	}
	defer func() {
		_, _ = pool.Exec(context.WithoutCancel(ctx), `ALTER TABLE fees ENABLE TRIGGER fees_config_version`)
	}()
	start := time.Now()
	const batch = 100_000
	for from := have + 1; from <= n; from += batch {
		_, err := pool.Exec(ctx, `
			INSERT INTO fees (collab_id, transaction_type, pay_type_id, currency_from, currency_to, amount_min, amount_max,
				fee_type, value, payer, priority, enabled)
			SELECT CASE WHEN i % 100 = 0 THEN NULL ELSE ($3::integer[])[(1 + i % cardinality($3::integer[]))::integer] END,
				CASE i % 3 WHEN 0 THEN NULL ELSE (i % 3)::smallint END,
				CASE WHEN i % 5 = 0 THEN NULL ELSE 1 + (i % 6)::integer END,
				c.code, c.code,
				CASE WHEN i % 4 = 0 THEN NULL ELSE (i % 1000) * 10 END,
				CASE WHEN i % 4 = 1 THEN NULL ELSE (i % 1000) * 10 + 5000 END,
				(1 + i % 2)::smallint, ((i % 300) / 100.0)::numeric(20, 4), (1 + i % 2)::smallint, (i % 50)::integer, i % 10 <> 0
			FROM generate_series($1::bigint, $2::bigint) AS i,
				LATERAL (SELECT (ARRAY['PHP', 'USD', 'EUR', 'GBP', 'JPY', 'SGD'])[(1 + i % 6)::integer] AS code) c`,
			from, min(from+batch-1, n), collabs)
		if err != nil {
			return fmt.Errorf("load fees: %w", err)
		}
	}
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) fees`); err != nil {
		return err
	}
	log.Info("fees loaded", "took", time.Since(start).Round(time.Second))
	return nil
}

// measure calls fn after one warm-up n times and answers the durations.
func measure(n int, fn func() error) ([]time.Duration, error) {
	if err := fn(); err != nil {
		return nil, err
	}
	ds := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds, nil
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	i := int(float64(len(ds)-1) * p)
	return ds[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

// listCases measures the list beside its bare ceiling.
func listCases(ctx context.Context, pool *pgxpool.Pool, svc *fee.Service, c config, out io.Writer) error {
	var total, collab int64
	var firstCollab, php int32
	if err := pool.QueryRow(ctx, `SELECT count(*), (SELECT min(id) FROM collabs), (SELECT id FROM currencies WHERE code = 'PHP') FROM fees`).
		Scan(&total, &firstCollab, &php); err != nil {
		return err
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM fees WHERE collab_id = $1`, firstCollab).Scan(&collab); err != nil {
		return err
	}
	admin := fee.Viewer{Scope: merchant.Scope{All: true}, Admin: true}
	merchantUser := fee.Viewer{Scope: merchant.Scope{MerchantIDs: []int32{1}}}
	yes := true
	type listCase struct {
		name   string
		viewer fee.Viewer
		filter fee.Filter
		page   int
		// The ceiling's statements: count (from, then its conditions),
		// then the page's conditions.
		count, countWhere, where string
		args                     []any
	}
	counts := `SELECT COALESCE(sum(n), 0)::bigint FROM fee_counts`
	rowsCount := `SELECT count(*) FROM fees`
	cases := []listCase{
		{"admin, no filter, page 1", admin, fee.Filter{}, 1, counts, ``, ``, nil},
		{"admin, no filter, page 1000", admin, fee.Filter{}, 1000, counts, ``, ``, nil},
		{"admin, collab filter, page 1", admin, fee.Filter{CollabID: &firstCollab}, 1, counts, ` WHERE collab_id = $1`, ` WHERE collab_id = $1`, []any{firstCollab}},
		{"admin, PHP and enabled, page 1", admin, fee.Filter{CurrencyFromID: &php, Enabled: &yes}, 1, rowsCount,
			` WHERE currency_from = (SELECT code FROM currencies WHERE id = $1) AND enabled = $2`,
			` WHERE currency_from = (SELECT code FROM currencies WHERE id = $1) AND enabled = $2`, []any{php, true}},
		{"merchant user (own collabs and global), page 1", merchantUser, fee.Filter{}, 1, counts,
			` WHERE (collab_id = 0 OR collab_id IN (SELECT id FROM collabs WHERE merchant_id = ANY($1)))`,
			` WHERE (collab_id IS NULL OR collab_id IN (SELECT id FROM collabs WHERE merchant_id = ANY($1)))`, []any{[]int32{1}}},
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	fmt.Fprintf(out, "### Fee list (%d fees; %d on the busiest collab; take 5)\n\n", total, collab)
	fmt.Fprintf(out, "| case | totalCount | p50 ms | p95 ms | bare p50 ms | bare p95 ms |\n|---|---|---|---|---|---|\n")
	for _, lc := range cases {
		var count int64
		got, err := measure(c.requests, func() error {
			p, err := svc.List(ctx, lc.viewer, lc.filter, lc.page, fee.DefaultTake)
			count = p.TotalCount
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", lc.name, err)
		}
		bare, err := measure(c.requests, func() error {
			var n int64
			if err := conn.QueryRow(ctx, lc.count+lc.countWhere, lc.args...).Scan(&n); err != nil {
				return err
			}
			args := append(slices.Clone(lc.args), fee.DefaultTake, (lc.page-1)*fee.DefaultTake)
			rows, err := conn.Query(ctx, fmt.Sprintf(`SELECT id, collab_id, transaction_type, pay_type_id, currency_from, currency_to,
				amount_min, amount_max, fee_type, value, payer, priority, enabled, created_at FROM fees%s ORDER BY id LIMIT $%d OFFSET $%d`,
				lc.where, len(args)-1, len(args)), args...)
			if err != nil {
				return err
			}
			rows.Close()
			return rows.Err()
		})
		if err != nil {
			return fmt.Errorf("%s bare: %w", lc.name, err)
		}
		fmt.Fprintf(out, "| %s | %d | %s | %s | %s | %s |\n", lc.name, count, ms(pct(got, .5)), ms(pct(got, .95)), ms(pct(bare, .5)), ms(pct(bare, .95)))
	}
	fmt.Fprintln(out)
	return nil
}

// loadTransactions makes the schema hold c.transactions transactions over
// 18 months ending now (uniform), on the demo collabs with weights 4:2:1:1,
// 70 % deposits, 88 % PHP (amounts 1.00 … 20,000.00) and 12 % USD, most with
// an applied fee.
func loadTransactions(ctx context.Context, pool *pgxpool.Pool, c config, log *slog.Logger) error {
	var have int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transactions`).Scan(&have); err != nil {
		return err
	}
	if have >= c.transactions {
		return nil
	}
	log.Info("loading transactions", "have", have, "want", c.transactions)
	// Only the benchmark uses this schema: the indexes and unique keys the
	// preview does not read only slow the load down.
	rows, err := pool.Query(ctx, `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'transactions'
		AND indexname NOT IN ('transactions_pkey', 'transactions_collab_created_idx', 'transactions_fee_preview_idx')`)
	if err != nil {
		return err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, n := range names {
		if _, err := pool.Exec(ctx, `ALTER TABLE transactions DROP CONSTRAINT IF EXISTS `+pgx.Identifier{n}.Sanitize()); err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, `DROP INDEX IF EXISTS `+pgx.Identifier{n}.Sanitize()); err != nil {
			return err
		}
	}
	start := time.Now()
	span := 540 * 24 * time.Hour
	for from := have + 1; from <= c.transactions; from += c.loadBatch {
		to := min(from+c.loadBatch-1, c.transactions)
		_, err := pool.Exec(ctx, `
			WITH cs AS (SELECT row_number() OVER (ORDER BY c.id) - 1 AS k, c.id, c.merchant_id, c.provider_id, m.name AS mn, p.name AS pn
				FROM collabs c JOIN merchants m ON m.id = c.merchant_id JOIN providers p ON p.id = c.provider_id
				WHERE c.merchant_id BETWEEN 1 AND 3 ORDER BY c.id LIMIT 4)
			INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name, provider_name,
				pay_type_name, nonce, transaction_type, status, amount, currency, destination_amount, destination_currency,
				applied_fee_id, applied_fee_type, applied_fee_value, applied_fee_amount, applied_fee_currency, created_at, updated_at)
			SELECT 'fb-' || i, cs.merchant_id, cs.id, cs.provider_id, 1 + (i % 3), cs.mn, cs.pn, 'bench', 'fb-' || i,
				CASE WHEN i % 10 < 7 THEN 1 ELSE 2 END, 4, a.amount, a.cur, a.amount, a.cur,
				CASE WHEN i % 5 = 0 THEN NULL ELSE 1 END, CASE WHEN i % 5 = 0 THEN 0 ELSE 1 END,
				CASE WHEN i % 5 = 0 THEN NULL ELSE 1.5 END,
				CASE WHEN i % 5 = 0 THEN NULL ELSE round(a.amount * 1.5 / 100, 2) END, a.cur, t.at, t.at
			FROM generate_series($1::bigint, $2::bigint) AS i
			JOIN cs ON cs.k = (ARRAY[0, 0, 0, 0, 1, 1, 2, 3])[(1 + (i * 7919) % 8)::integer]
			CROSS JOIN LATERAL (SELECT CASE WHEN (i * 31) % 100 < 88 THEN 'PHP' ELSE 'USD' END AS cur,
				(1 + ((i * 2654435761) % 2000000) / 100.0)::numeric(20, 2) AS amount) a
			CROSS JOIN LATERAL (SELECT now() - make_interval(secs => ($3::double precision * ($4::bigint - i)) / $4::bigint) AS at) t`,
			from, to, span.Seconds(), c.transactions)
		if err != nil {
			return fmt.Errorf("load transactions %d…%d: %w", from, to, err)
		}
		log.Info("loaded", "to", to, "elapsed", time.Since(start).Round(time.Second))
	}
	if _, err := pool.Exec(ctx, `TRUNCATE transaction_totals_delta`); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `VACUUM (ANALYZE) transactions`); err != nil {
		return err
	}
	log.Info("transactions loaded", "took", time.Since(start).Round(time.Second))
	return nil
}

// previewCases measures the preview beside its bare ceiling, on a realistic
// fee table.
func previewCases(ctx context.Context, pool *pgxpool.Pool, svc *fee.Service, c config, out io.Writer) error {
	// A realistic fee table: the synthetic fees go, a few dozen stay.
	if _, err := pool.Exec(ctx, `TRUNCATE fees`); err != nil {
		return err
	}
	var collabs []int32
	rows, err := pool.Query(ctx, `SELECT id FROM collabs WHERE merchant_id BETWEEN 1 AND 3 ORDER BY id LIMIT 4`)
	if err != nil {
		return err
	}
	if collabs, err = pgx.CollectRows(rows, pgx.RowTo[int32]); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `
		INSERT INTO fees (collab_id, transaction_type, pay_type_id, currency_from, currency_to, amount_min, amount_max, fee_type, value, payer, priority)
		SELECT c, t, p, cur, cur, lo, hi, ft, v, 2, pr
		FROM unnest($1::integer[]) AS c,
			(VALUES (NULL::smallint), (1::smallint), (2::smallint)) AS ty(t),
			(VALUES (NULL::integer), (1), (2)) AS pt(p),
			(VALUES ('PHP'), ('USD')) AS cu(cur),
			(VALUES (NULL::numeric, 999.99::numeric, 1::smallint, 1.5::numeric, 0), (1000, 9999.99, 1, 1.25, 0), (10000, NULL, 2, 25, 0)) AS r(lo, hi, ft, v, pr)
		UNION ALL
		SELECT NULL, t, NULL, cur, cur, NULL, NULL, 1, 2, 2, 0 FROM (VALUES (1::smallint), (2::smallint)) AS ty(t), (VALUES ('PHP'), ('USD')) AS cu(cur)`,
		collabs); err != nil {
		return fmt.Errorf("realistic fees: %w", err)
	}
	var nFees int64
	var editID int64
	if err := pool.QueryRow(ctx, `SELECT count(*), (SELECT min(id) FROM fees WHERE collab_id = $1 AND transaction_type IS NULL
		AND pay_type_id IS NULL AND currency_from = 'PHP' AND amount_min = 1000) FROM fees`, collabs[0]).Scan(&nFees, &editID); err != nil {
		return err
	}
	var total, window int64
	if err := pool.QueryRow(ctx, `SELECT (SELECT reltuples::bigint FROM pg_class WHERE oid = 'transactions'::regclass),
		count(*) FROM transactions WHERE created_at >= now() - interval '30 days'`).Scan(&total, &window); err != nil {
		return err
	}
	admin := fee.Viewer{Scope: merchant.Scope{All: true}, Admin: true}
	php, err := currencyID(ctx, pool, "PHP")
	if err != nil {
		return err
	}
	type previewCase struct {
		name  string
		id    int64
		in    fee.Input
		where string
	}
	cases := []previewCase{
		{"edit a fee of the busiest collab (1.25 % → 1.9 %, 1,000 … 9,999.99 → 500 … 12,000)", editID,
			fee.Input{CollabID: collabs[0], CurrencyFromID: php, CurrencyToID: php, AmountMin: "500", AmountMax: "12000", FeeType: 1, Value: "1.9"},
			fmt.Sprintf(` AND collab_id = %d`, collabs[0])},
		{"a new global PHP fee (every collab)", 0,
			fee.Input{CurrencyFromID: php, CurrencyToID: php, FeeType: 1, Value: "0.8", Priority: 5}, ``},
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	fmt.Fprintf(out, "### What-if preview (≈%d transactions, %d in the last 30 days; %d fees)\n\n", total, window, nFees)
	fmt.Fprintf(out, "| case | transactions | changed | p50 ms | p95 ms | bare p50 ms | bare p95 ms |\n|---|---|---|---|---|---|---|\n")
	for _, pc := range cases {
		var p fee.Preview
		got, err := measure(c.previewRuns, func() error {
			var err error
			p, err = svc.Preview(ctx, admin, pc.id, pc.in)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", pc.name, err)
		}
		bare, err := measure(c.previewRuns, func() error {
			rows, err := conn.Query(ctx, `SELECT currency, count(*), sum(applied_fee_amount) FROM transactions
				WHERE created_at >= now() - interval '30 days' AND currency = 'PHP'`+pc.where+` GROUP BY currency`)
			if err != nil {
				return err
			}
			rows.Close()
			return rows.Err()
		})
		if err != nil {
			return fmt.Errorf("%s bare: %w", pc.name, err)
		}
		var n, changed int64
		for _, cur := range p.Currencies {
			n, changed = n+cur.Count, changed+cur.Changed
		}
		fmt.Fprintf(out, "| %s | %d | %d | %s | %s | %s | %s |\n", pc.name, n, changed, ms(pct(got, .5)), ms(pct(got, .95)), ms(pct(bare, .5)), ms(pct(bare, .95)))
	}
	fmt.Fprintln(out)
	// The plan of the window's read, to show it reads the index only.
	var plan []string
	rows, err = conn.Query(ctx, `EXPLAIN SELECT count(*) FROM transactions WHERE created_at >= now() - interval '30 days' AND currency = 'PHP'`)
	if err != nil {
		return err
	}
	if plan, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return err
	}
	fmt.Fprintf(out, "Plan of the window's read: `%s`\n\n", strings.TrimSpace(strings.Join(plan, " / ")))
	return nil
}

func currencyID(ctx context.Context, pool *pgxpool.Pool, code string) (int32, error) {
	var id int32
	err := pool.QueryRow(ctx, `SELECT id FROM currencies WHERE code = $1`, code).Scan(&id)
	return id, err
}
