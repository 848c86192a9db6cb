// Command fraudbench measures the fraud review of issue 17
// (docs/contracts-frauds.md) on a schema of its own, each figure beside a
// bare ceiling measured in the same run:
//
//   - the fraud list (fraud.Service.List on postgres.Frauds, the code the
//     gateway's ListFrauds calls) over about a million frauds: p50/p95 per
//     filter, for an admin and a merchant user, beside a bare keyset read of
//     the same index;
//   - the detection job (fraud.Detect on postgres.Frauds, what the
//     gateway.fraud-detection job runs) over one day of about a million
//     transactions, beside a bare aggregate of that day's rows (one scan,
//     one GROUP BY), the least any set-based pass must read.
//
// The data is written with set-based SQL (generate_series) into a schema
// migrated like the gateway's; the schema is dropped at the end unless
// -keep.
package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb"
)

var (
	dbURL    = flag.String("db", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "Postgres URL")
	schema   = flag.String("schema", "fraudbench", "schema to create (dropped first and at the end)")
	dayTx    = flag.Int("day-transactions", 1_000_000, "transactions of the scanned day")
	frauds   = flag.Int("frauds", 1_000_000, "frauds of the list")
	requests = flag.Int("requests", 40, "measured calls per list case (after 2 warm-ups)")
	keep     = flag.Bool("keep", false, "keep the schema")
	skipLoad = flag.Bool("skip-load", false, "reuse the kept schema's data")
)

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fraudbench:", err)
		os.Exit(1)
	}
}

// day is the scanned day; the frauds are detected over the 30 days before
// its end.
var day = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)

func run(ctx context.Context) error {
	if !*skipLoad {
		if err := drop(ctx); err != nil {
			return err
		}
	}
	if !*keep {
		defer func() { _ = drop(context.WithoutCancel(ctx)) }()
	}
	if err := pgdb.Migrate(ctx, *dbURL, *schema, postgres.Migrations); err != nil {
		return err
	}
	pool, err := pgdb.Open(ctx, *dbURL, *schema)
	if err != nil {
		return err
	}
	defer pool.Close()
	if !*skipLoad {
		if err := load(ctx, pool); err != nil {
			return err
		}
	}
	store := postgres.NewFrauds(pool)
	if err := benchList(ctx, pool, store); err != nil {
		return err
	}
	return benchDetect(ctx, pool, store)
}

func drop(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{*schema}.Sanitize()+` CASCADE`)
	return err
}

func timed(name string, fn func() error) (time.Duration, error) {
	start := time.Now()
	err := fn()
	d := time.Since(start)
	fmt.Printf("  %s: %s\n", name, d.Round(time.Millisecond))
	return d, err
}

// load writes the demo merchants, providers and collabs, the day's
// transactions (about 200,000 clients of 3 merchants, a few payments each;
// 400,000 addresses; 20,000 user agents; 1,000 clients paying 25 times within
// a minute; one in 20 failed; amounts from 10 to
// 5,000), 1,000,000 older transactions for the frauds to link, and the
// frauds (4 rules, levels 1–4, one in 10 reviewed, 3 transactions each,
// detected over 30 days).
func load(ctx context.Context, pool *pgxpool.Pool) error {
	fmt.Println("load")
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		return err
	}
	exec := func(name, sql string, args ...any) error {
		_, err := timed(name, func() error {
			_, err := pool.Exec(ctx, sql, args...)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	insertTx := `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, amount, currency,
			destination_amount, destination_currency, payment_ip_address, user_agent, created_at, updated_at)
		SELECT $4 || i, m, m, 1, 1, 'Merchant ' || m, 'GoVip', 'GCash', $4 || 'n' || i, 'c' || (i * 7919 % 200000),
			1, CASE WHEN i % 20 = 0 THEN -2 ELSE 4 END, a, 'PHP', a, 'PHP',
			'10.' || (i * 6007 % 400000 / 65536) || '.' || (i * 6007 % 400000 / 256 % 256) || '.' || (i * 6007 % 400000 % 256),
			'Mozilla/5.0 agent ' || (i * 13 % 20000),
			$1::timestamptz + (i::double precision / $2) * $3::interval, $1::timestamptz + (i::double precision / $2) * $3::interval
		FROM generate_series(1::bigint, $2) AS i,
			LATERAL (SELECT (i % 3) + 1 AS m, round((10 + (i * 7 % 4990))::numeric, 2) AS a) x`
	if err := exec("older transactions (1,000,000 over the 30 days before)", insertTx, day.AddDate(0, 0, -30), 1_000_000, "720 hours", "old-"); err != nil {
		return err
	}
	if err := exec(fmt.Sprintf("the day's transactions (%d)", *dayTx), insertTx, day, *dayTx, "24 hours", "day-"); err != nil {
		return err
	}
	if err := exec("the day's bursts (1,000 clients paying 25 times within a minute)", `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, amount, currency,
			destination_amount, destination_currency, payment_ip_address, user_agent, created_at, updated_at)
		SELECT 'burst-' || i, m, m, 1, 1, 'Merchant ' || m, 'GoVip', 'GCash', 'burst-n' || i, 'b' || (i % 1000),
			1, 4, 100, 'PHP', 100, 'PHP', '172.16.' || (i % 1000 / 250) || '.' || (i % 250), 'burst agent',
			$1::timestamptz + (i % 1000) * interval '86 seconds' + (i / 1000) * interval '2 seconds',
			$1::timestamptz + (i % 1000) * interval '86 seconds' + (i / 1000) * interval '2 seconds'
		FROM generate_series(0, 24999) AS i, LATERAL (SELECT (i % 1000 % 3) + 1 AS m) x`, day); err != nil {
		return err
	}
	if err := exec(fmt.Sprintf("frauds (%d)", *frauds), `
		INSERT INTO client_frauds (reference_id, rule, basis, merchant_id, client_id, merchant_client_id, window_start,
			window_minutes, observed, threshold, level, reason, transaction_count, detected_at, updated_at,
			review_status, review_completed_at, reviewed_by, notes)
		SELECT 'FRD-B' || i, (ARRAY['velocity', 'amount-spike', 'failures-then-success', 'shared-identity'])[i % 4 + 1],
			CASE WHEN i % 4 = 3 THEN 'ip' ELSE 'merchant-client-id' END, (i % 3) + 1, 'bc' || i, 'bc' || i,
			date_trunc('hour', d), 10, 25, 20, (i % 4) + 1,
			'Velocity: 25 payments from merchant client id bc' || i || ' within 10 minutes; the threshold is 20 payments.',
			3, d, d, CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 10 = 0 THEN d END,
			CASE WHEN i % 10 = 0 THEN 'admin' ELSE '' END, ''
		FROM generate_series(1::bigint, $2) AS i,
			LATERAL (SELECT $1::timestamptz - (i::double precision / $2) * interval '720 hours' AS d) x`, day.AddDate(0, 0, 1), *frauds); err != nil {
		return err
	}
	if err := exec("fraud transactions (3 per fraud)", `
		INSERT INTO fraud_transactions (fraud_id, transaction_id)
		SELECT f.id, t.id FROM client_frauds f
		JOIN transactions t ON t.reference_id IN ('old-' || (f.id % 1000000 + 1), 'old-' || ((f.id + 333333) % 1000000 + 1), 'old-' || ((f.id + 666666) % 1000000 + 1))`); err != nil {
		return err
	}
	// As autovacuum would after a load: statistics, and the visibility map
	// that lets the list's counts read the index only.
	return exec("vacuum analyze", `VACUUM ANALYZE transactions, client_frauds, fraud_transactions`)
}

type listCase struct {
	name  string
	scope merchant.Scope
	req   fraud.ListRequest
}

func benchList(ctx context.Context, pool *pgxpool.Pool, store *postgres.Frauds) error {
	var n int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM client_frauds`).Scan(&n); err != nil {
		return err
	}
	fmt.Printf("\nfraud list over %d frauds (%d requests per case, after 2 warm-ups)\n\n", n, *requests)
	svc := fraud.NewService(store, time.Now)
	admin := merchant.Scope{All: true}
	user := merchant.Scope{MerchantIDs: []int32{1}}
	end := day.AddDate(0, 0, 1)
	week := fraud.ListRequest{Page: 1, Take: 10, StartDate: end.AddDate(0, 0, -7).Format(time.RFC3339), EndDate: end.Add(time.Hour).Format(time.RFC3339)}
	with := func(f func(r *fraud.ListRequest)) fraud.ListRequest {
		r := week
		f(&r)
		return r
	}
	i32 := func(v int32) *int32 { return &v }
	var txID int64
	if err := pool.QueryRow(ctx, `SELECT transaction_id FROM fraud_transactions ORDER BY fraud_id DESC LIMIT 1 OFFSET 5000`).Scan(&txID); err != nil {
		return err
	}
	cases := []listCase{
		{"admin, last 7 days (the page's default), page 1", admin, week},
		{"admin, last 7 days, take 30, page 100", admin, with(func(r *fraud.ListRequest) { r.Take, r.Page = 30, 100 })},
		{"admin, no dates", admin, fraud.ListRequest{Page: 1, Take: 10}},
		{"admin, status Confirmed, last 7 days", admin, with(func(r *fraud.ListRequest) { r.Status = i32(1) })},
		{"admin, merchant 2, last 7 days", admin, with(func(r *fraud.ListRequest) { r.MerchantID = i32(2) })},
		{"admin, client id", admin, with(func(r *fraud.ListRequest) { r.ClientID = "bc100042" })},
		{"admin, merchant 1 + merchant client id", admin, with(func(r *fraud.ListRequest) { r.MerchantID, r.MerchantClientID = i32(1), "bc100044" })},
		{"admin, transaction id", admin, fraud.ListRequest{Page: 1, Take: 10, TransactionID: &txID}},
		{"admin, reference id", admin, fraud.ListRequest{Page: 1, Take: 10, ReferenceID: "FRD-B777777"}},
		{"merchant user (merchant 1), last 7 days", user, week},
		{"merchant user, status Not Reviewed, last 7 days", user, with(func(r *fraud.ListRequest) { r.Status = i32(0) })},
		{"admin, one day 30 days back", admin, with(func(r *fraud.ListRequest) {
			r.StartDate, r.EndDate = end.AddDate(0, 0, -30).Format(time.RFC3339), end.AddDate(0, 0, -29).Format(time.RFC3339)
		})},
	}
	fmt.Println("| case | rows | total | p50 | p95 |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, c := range cases {
		var page fraud.Page
		ds, err := measure(func() error {
			var err error
			page, err = svc.List(ctx, c.scope, c.req)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Printf("| %s | %d | %d | %s | %s |\n", c.name, len(page.Frauds), page.TotalCount, pct(ds, 50), pct(ds, 95))
	}
	ds, err := measure(func() error {
		rows, err := pool.Query(ctx, `SELECT id FROM client_frauds WHERE detected_at >= $1 ORDER BY detected_at DESC, id DESC LIMIT 10`, end.AddDate(0, 0, -7))
		if err != nil {
			return err
		}
		_, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("| ceiling: bare keyset read of 10 ids, last 7 days | 10 | | %s | %s |\n", pct(ds, 50), pct(ds, 95))
	return nil
}

func measure(fn func() error) ([]time.Duration, error) {
	for range 2 {
		if err := fn(); err != nil {
			return nil, err
		}
	}
	ds := make([]time.Duration, 0, *requests)
	for range *requests {
		start := time.Now()
		if err := fn(); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(start))
	}
	slices.Sort(ds)
	return ds, nil
}

func pct(ds []time.Duration, p int) string {
	i := (len(ds)*p+99)/100 - 1
	return fmt.Sprintf("%.1f ms", float64(ds[max(i, 0)].Microseconds())/1000)
}

func benchDetect(ctx context.Context, pool *pgxpool.Pool, store *postgres.Frauds) error {
	dayEnd := day.AddDate(0, 0, 1)
	var n int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE created_at >= $1 AND created_at < $2`, day, dayEnd).Scan(&n); err != nil {
		return err
	}
	fmt.Printf("\nfraud detection over one day of %d transactions (default thresholds)\n\n", n)
	// The ceiling first, so that both read a warm cache.
	if _, err := timed("ceiling: one aggregate of the day's rows (count, sum by merchant and client)", func() error {
		_, err := pool.Exec(ctx, `SELECT merchant_id, merchant_client_id, count(*), sum(amount) FROM transactions
			WHERE created_at >= $1 AND created_at < $2 GROUP BY 1, 2`, day, dayEnd)
		return err
	}); err != nil {
		return err
	}
	for _, span := range []time.Duration{24 * time.Hour, 6 * time.Hour} {
		// The frauds an earlier pass detected go: each starts afresh.
		if _, err := pool.Exec(ctx, `DELETE FROM client_frauds WHERE reference_id NOT LIKE 'FRD-B%'`); err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, `DELETE FROM fraud_client_stats`); err != nil {
			return err
		}
		if _, err := pool.Exec(ctx, `UPDATE fraud_detection_state SET scanned_until = $1`, day); err != nil {
			return err
		}
		var rep fraud.DetectReport
		if _, err := timed(fmt.Sprintf("fraud.Detect, the day in passes of %s", span), func() error {
			var err error
			rep, err = fraud.Detect(ctx, store, fraud.DetectOptions{Span: span}, dayEnd)
			return err
		}); err != nil {
			return err
		}
		fmt.Printf("    scanned %d rows (the day and the windows it reopens), %d new frauds, %d raised, %d transactions linked\n",
			rep.Scanned, rep.Flagged, rep.Updated, rep.Linked)
		names := slices.Sorted(maps.Keys(rep.Steps))
		for _, k := range names {
			fmt.Printf("      %s: %s\n", k, rep.Steps[k].Round(time.Millisecond))
		}
	}
	// A rerun over the same day finds the same flags.
	var before, after int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM client_frauds`).Scan(&before); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `UPDATE fraud_detection_state SET scanned_until = $1`, day); err != nil {
		return err
	}
	if _, err := timed("fraud.Detect again over the same day (6h passes)", func() error {
		_, err := fraud.Detect(ctx, store, fraud.DetectOptions{}, dayEnd)
		return err
	}); err != nil {
		return err
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM client_frauds`).Scan(&after); err != nil {
		return err
	}
	fmt.Printf("    frauds before %d, after %d\n", before, after)
	return nil
}
