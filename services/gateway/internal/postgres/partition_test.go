package postgres_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// monthStart is the first instant of t's UTC month, months months later.
func monthStart(t time.Time, months int) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month()+time.Month(months), 1, 0, 0, 0, 0, time.UTC)
}

func partitionName(t time.Time) string { return "transactions_" + t.Format("2006_01") }

// partitionedSchema is a migrated schema with the demo catalogue and
// monthly partitions from five months ago, holding one transaction a day
// for the last 140 days; it returns the pool and the first collab.
func partitionedSchema(t *testing.T) (*pgxpool.Pool, int32) {
	t.Helper()
	ctx := t.Context()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := pool.Exec(ctx, `SELECT ensure_transaction_partitions(now() + interval '3 months', $1)`, monthStart(now, -5)); err != nil {
		t.Fatal(err)
	}
	var collab int32
	if _, err := pool.Exec(ctx, `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, transaction_type, status, amount, currency,
			destination_amount, destination_currency, created_at, updated_at)
		SELECT 'R-' || c.id || '-' || d, c.merchant_id, c.id, c.provider_id, cpt.pay_type_id, 'm', 'p', 'GCash',
			'n-' || d, 1, 2, 10, 'PHP', 10, 'PHP', now() - d * interval '1 day', now() - d * interval '1 day'
		FROM (SELECT * FROM collabs ORDER BY id LIMIT 1) c
		JOIN LATERAL (SELECT pay_type_id FROM collab_pay_types WHERE collab_id = c.id LIMIT 1) cpt ON true
		CROSS JOIN generate_series(0, 139) d`); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT min(id) FROM collabs`).Scan(&collab); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ANALYZE transactions`); err != nil {
		t.Fatal(err)
	}
	return pool, collab
}

// scannedPartitions is the partitions of transactions that st's plan
// reads: with generic, under the generic plan (run-time pruning), counting
// only the nodes that ran.
func scannedPartitions(t *testing.T, pool *pgxpool.Pool, st postgres.Statement, generic bool) []string {
	t.Helper()
	ctx := t.Context()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	mode := "auto"
	if generic {
		mode = "force_generic_plan"
	}
	if _, err := conn.Exec(ctx, `SET plan_cache_mode = `+mode); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(context.Background(), `RESET plan_cache_mode`) //nolint:errcheck // the connection is reset when released broken
	var doc []byte
	if err := conn.QueryRow(ctx, `EXPLAIN (ANALYZE, FORMAT JSON) `+st.SQL, st.Args...).Scan(&doc); err != nil {
		t.Fatalf("explain %s: %v", st.SQL, err)
	}
	var plans []struct{ Plan map[string]any }
	if err := json.Unmarshal(doc, &plans); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(n map[string]any)
	walk = func(n map[string]any) {
		if rel, ok := n["Relation Name"].(string); ok && strings.HasPrefix(rel, "transactions_") {
			if loops, _ := n["Actual Loops"].(float64); loops > 0 {
				seen[rel] = true
			}
		}
		kids, _ := n["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				walk(m)
			}
		}
	}
	for _, p := range plans {
		walk(p.Plan)
	}
	out := make([]string, 0, len(seen))
	for rel := range seen {
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// TestListPrunesToItsDates shows, with EXPLAIN, that the list's statements
// (postgres.ListStatements, the ones the gateway sends) read only the
// partitions of their date range, under the first custom plans and under the
// generic plan a prepared statement settles on.
func TestListPrunesToItsDates(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, collab := partitionedSchema(t)
	// The previous month, whole, and a range across the turn of a month.
	prev := monthStart(time.Now(), -1)
	prevEnd := monthStart(time.Now(), 0).Add(-time.Millisecond)
	across := prevEnd.Add(-3 * 24 * time.Hour)
	acrossEnd := prevEnd.Add(2 * 24 * time.Hour)
	for _, c := range []struct {
		name     string
		from, to time.Time
		want     []string
	}{
		{"one month", prev, prevEnd, []string{partitionName(prev)}},
		{"across a month's end", across, acrossEnd, []string{partitionName(prev), partitionName(monthStart(time.Now(), 0))}},
	} {
		for _, generic := range []bool{false, true} {
			from, to := c.from, c.to
			f := payment.ListFilter{CollabID: collab, Page: 1, Take: 20, From: &from, To: &to, IncludeTotals: true,
				Statuses: []payment.Status{payment.Status(2)}, Scope: merchant.Scope{All: true}}
			// The totals from the rows (the rollups count whole hours, and
			// their partial ends from the rows too).
			totals, _, page, err := postgres.ListStatements(ctx, pool, f)
			if err != nil {
				t.Fatal(err)
			}
			for name, st := range map[string]postgres.Statement{"page": page, "totals": totals} {
				got := scannedPartitions(t, pool, st, generic)
				// The totals may read no row at all (whole days come from
				// the rollups): what they read must be within the range.
				if name == "totals" && len(got) == 0 {
					continue
				}
				if len(got) == 0 {
					t.Errorf("%s, %s (generic plan %v) reads no partition: the plan did not run", c.name, name, generic)
				}
				for _, p := range got {
					if !slices.Contains(c.want, p) {
						t.Errorf("%s, %s (generic plan %v) reads %v, want only %v:\n%s", c.name, name, generic, got, c.want, st.SQL)
						break
					}
				}
			}
		}
	}

	// A lookup by reference, id or nonce reads one partition through the
	// keys: the one of the transaction's month.
	var id int64
	var ref string
	var at time.Time
	if err := pool.QueryRow(ctx, `SELECT id, reference_id, created_at FROM transactions ORDER BY created_at LIMIT 1`).Scan(&id, &ref, &at); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]payment.ListFilter{
		"reference": {Reference: ref},
		"id":        {ID: id},
	} {
		f.CollabID, f.Page, f.Take, f.Scope = collab, 1, 20, merchant.Scope{All: true}
		totals, _, page, err := postgres.ListStatements(ctx, pool, f)
		if err != nil {
			t.Fatal(err)
		}
		// Its first page is its count: no count statement, as List sends none;
		// a later page is counted.
		if totals.SQL != "" {
			t.Errorf("the list by %s sends a count statement on its first page:\n%s", name, totals.SQL)
		}
		f.Page = 2
		if totals, _, _, err := postgres.ListStatements(ctx, pool, f); err != nil || totals.SQL == "" {
			t.Errorf("the list by %s, page 2: count statement %q, %v; want one", name, totals.SQL, err)
		}
		if got := scannedPartitions(t, pool, page, true); !slices.Equal(got, []string{partitionName(at)}) {
			t.Errorf("the list by %s reads %v, want only %s", name, got, partitionName(at))
		}
	}
	payments := postgres.NewPayments(pool)
	got, err := payments.Transaction(ctx, id)
	if err != nil || got.ReferenceID != ref {
		t.Fatalf("Transaction(%d) = %+v, %v; want reference %s", id, got, err, ref)
	}
	if byNonce, err := payments.ByNonce(ctx, got.MerchantID, got.Nonce); err != nil || byNonce.ID != id {
		t.Fatalf("ByNonce = %d, %v; want %d", byNonce.ID, err, id)
	}
}

// TestPartitionsAheadAndDetach runs the partitions' upkeep (the job
// gateway.transaction-partitions) and the archiving of a month: detached,
// forgotten by the list's counts, its rows gone from the list while the
// other months stay whole.
func TestPartitionsAheadAndDetach(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, collab := partitionedSchema(t)
	parts := postgres.NewPartitions(pool)
	created, strays, err := parts.Ensure(ctx, 6)
	if err != nil {
		t.Fatal(err)
	}
	if created != 3 || strays {
		t.Errorf("Ensure(6) after 3 months ahead = %d created, strays %v; want 3 and none", created, strays)
	}
	if created, _, err = parts.Ensure(ctx, 6); err != nil || created != 0 {
		t.Errorf("Ensure again = %d, %v; want 0 (idempotent)", created, err)
	}
	for m := -5; m <= 6; m++ {
		var ok bool
		if err := pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, partitionName(monthStart(time.Now(), m))).Scan(&ok); err != nil || !ok {
			t.Errorf("partition %s missing (%v)", partitionName(monthStart(time.Now(), m)), err)
		}
	}
	// A row before every partition lands in the default one, and the job
	// says so.
	if _, err := pool.Exec(ctx, `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, transaction_type, status, amount, currency,
			destination_amount, destination_currency, created_at, updated_at)
		SELECT 'OLD-1', merchant_id, collab_id, provider_id, pay_type_id, 'm', 'p', 'GCash', 'old-1', 1, 2, 10, 'PHP', 10, 'PHP',
			'2001-01-01', '2001-01-01' FROM transactions LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	if _, strays, err = parts.Ensure(ctx, 6); err != nil || !strays {
		t.Errorf("Ensure with a row in the default partition: strays %v, %v; want true", strays, err)
	}

	payments := postgres.NewPayments(pool)
	if _, err := payments.BuildTotals(ctx); err != nil {
		t.Fatal(err)
	}
	count := func(from, to time.Time) int {
		t.Helper()
		page, err := payments.List(ctx, payment.ListFilter{CollabID: collab, Page: 1, Take: 5, From: &from, To: &to,
			IncludeTotals: true, Scope: merchant.Scope{All: true}})
		if err != nil {
			t.Fatal(err)
		}
		return page.TotalCount
	}
	old, oldEnd := monthStart(time.Now(), -3), monthStart(time.Now(), -2)
	next, nextEnd := monthStart(time.Now(), -2), monthStart(time.Now(), -1)
	before, beforeNext := count(old, oldEnd.Add(-time.Millisecond)), count(next, nextEnd.Add(-time.Millisecond))
	if before < 28 || beforeNext < 28 {
		t.Fatalf("months hold %d and %d transactions, want a month's (one a day)", before, beforeNext)
	}
	// The runbook's archiving (docs/partitioning.md): DETACH, forget its
	// totals, then its keys.
	name := partitionName(old)
	if _, err := pool.Exec(ctx, `ALTER TABLE transactions DETACH PARTITION `+name); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `SELECT forget_transaction_totals($1, $2)`, old, oldEnd); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `DELETE FROM transaction_keys WHERE created_at >= $1 AND created_at < $2`, old, oldEnd); err != nil {
		t.Fatal(err)
	}
	if got := count(old, oldEnd.Add(-time.Millisecond)); got != 0 {
		t.Errorf("the detached month still counts %d transactions", got)
	}
	if got := count(next, nextEnd.Add(-time.Millisecond)); got != beforeNext {
		t.Errorf("the month after the detached one counts %d, want %d as before", got, beforeNext)
	}
	var archived int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM `+name).Scan(&archived); err != nil || archived != before {
		t.Errorf("the detached table holds %d rows (%v), want %d", archived, err, before)
	}
}

// TestListExactMatchAcrossMonths lists by every exact-match filter (search
// by id and by reference, nonce, provider transaction id, merchant client
// id, payment method value, IP), which List runs with generic plans: each
// finds its rows in two months' partitions, newest first, with their count
// and totals, on the request that makes the generic plan and on those that
// reuse it. On a connection of its own it checks that those statements ran
// with generic plans only, that a date range kept custom plans, and that
// the setting did not outlive the transaction.
func TestListExactMatchAcrossMonths(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	pool, collab := partitionedSchema(t)
	// Two rows, 1 and 60 days old (two months apart at least), share every
	// exact-match value; a second merchant's row, 30 days old, reuses the
	// nonce of the 60-day-old one.
	ids := map[int]int64{}
	for _, d := range []int{1, 60} {
		var id int64
		if err := pool.QueryRow(ctx, `
			UPDATE transactions SET provider_transaction_id = 'PT-SHARED', merchant_client_id = 'cid-shared',
				payment_method_value = '09170000000', payment_ip_address = '198.51.100.7'
			WHERE reference_id = 'R-' || $1::int || '-' || $2::int RETURNING id`, collab, d).Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[d] = id
	}
	var other int64
	if err := pool.QueryRow(ctx, `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, transaction_type, status, amount, currency,
			destination_amount, destination_currency, created_at, updated_at)
		SELECT 'R-OTHER', c.merchant_id, c.id, c.provider_id, cpt.pay_type_id, 'm', 'p', 'GCash', 'n-60', 1, 2, 7, 'PHP', 7, 'PHP',
			now() - interval '30 days', now() - interval '30 days'
		FROM collabs c JOIN LATERAL (SELECT pay_type_id FROM collab_pay_types WHERE collab_id = c.id LIMIT 1) cpt ON true
		WHERE c.merchant_id <> (SELECT merchant_id FROM collabs WHERE id = $1)
		ORDER BY c.id LIMIT 1 RETURNING id`, collab).Scan(&other); err != nil {
		t.Fatal(err)
	}
	var oldRef string
	var oldAt time.Time
	if err := pool.QueryRow(ctx, `SELECT reference_id, created_at FROM transactions WHERE id = $1`, ids[60]).Scan(&oldRef, &oldAt); err != nil {
		t.Fatal(err)
	}
	if monthStart(oldAt, 0).Equal(monthStart(time.Now(), 0)) {
		t.Fatalf("the 60-day-old row is in this month's partition (%s)", oldAt)
	}
	newest := []int64{ids[1], ids[60]}
	cases := []struct {
		name   string
		f      payment.ListFilter
		want   []int64
		amount string
	}{
		{"provider transaction id", payment.ListFilter{ProviderTID: "PT-SHARED"}, newest, "20.00"},
		{"merchant client id", payment.ListFilter{MerchantCID: "cid-shared"}, newest, "20.00"},
		{"payment method value", payment.ListFilter{PaymentMethodValue: "09170000000"}, newest, "20.00"},
		{"payment IP", payment.ListFilter{PaymentIP: "198.51.100.7"}, newest, "20.00"},
		{"nonce", payment.ListFilter{Nonce: "n-60"}, []int64{other, ids[60]}, "17.00"},
		{"search by id", payment.ListFilter{ID: ids[60]}, []int64{ids[60]}, "10.00"},
		{"search by reference", payment.ListFilter{Reference: oldRef}, []int64{ids[60]}, "10.00"},
		{"merchant client id and a range of the older month", payment.ListFilter{MerchantCID: "cid-shared",
			From: ptr(monthStart(oldAt, 0)), To: ptr(monthStart(oldAt, 1).Add(-time.Millisecond))}, []int64{ids[60]}, "10.00"},
		{"no such value", payment.ListFilter{MerchantCID: "cid-none"}, nil, ""},
	}
	payments := postgres.NewPayments(pool)
	for _, c := range cases {
		// The first request makes the generic plan on its connection, the
		// next ones reuse it (the pool has several connections).
		for round := range 6 {
			f := c.f
			f.Page, f.Take, f.IncludeTotals, f.Scope = 1, 20, true, merchant.Scope{All: true}
			page, err := payments.List(ctx, f)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got := make([]int64, 0, len(page.Transactions))
			for _, tx := range page.Transactions {
				got = append(got, tx.ID)
			}
			if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) || page.TotalCount != len(c.want) {
				t.Errorf("%s, request %d: ids %v, count %d; want %v", c.name, round+1, got, page.TotalCount, c.want)
			}
			if c.amount != "" && (len(page.Totals) != 1 || page.Totals["PHP"].String() != c.amount) {
				t.Errorf("%s, request %d: totals %v; want PHP %s", c.name, round+1, page.Totals, c.amount)
			}
		}
	}

	// Pages of one row: the page is read beside the count, not after it, so
	// a page past the count comes back empty with the count. A search's
	// first page is its count; its second page still counts.
	for _, c := range []struct {
		f     payment.ListFilter
		want  []int64
		count int
	}{
		{payment.ListFilter{MerchantCID: "cid-shared", Page: 1}, []int64{ids[1]}, 2},
		{payment.ListFilter{MerchantCID: "cid-shared", Page: 2}, []int64{ids[60]}, 2},
		{payment.ListFilter{MerchantCID: "cid-shared", Page: 3}, nil, 2},
		{payment.ListFilter{ID: ids[60], Page: 2}, nil, 1},
		{payment.ListFilter{Reference: oldRef, Page: 2}, nil, 1},
		{payment.ListFilter{ID: ids[60], Page: 1, Scope: merchant.Scope{MerchantIDs: []int32{-1}}}, nil, 0},
	} {
		f := c.f
		f.Take, f.IncludeTotals = 1, true
		if len(f.Scope.MerchantIDs) == 0 {
			f.Scope = merchant.Scope{All: true}
		}
		page, err := payments.List(ctx, f)
		if err != nil {
			t.Fatalf("%+v: %v", c.f, err)
		}
		got := make([]int64, 0, len(page.Transactions))
		for _, tx := range page.Transactions {
			got = append(got, tx.ID)
		}
		if !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) || page.TotalCount != c.count {
			t.Errorf("%+v, take 1: ids %v, count %d; want %v, %d", c.f, got, page.TotalCount, c.want, c.count)
		}
		if c.count == 0 && len(page.Totals) != 0 {
			t.Errorf("%+v: totals %v of nothing found", c.f, page.Totals)
		}
	}

	// One connection: the exact match's statements were planned generic,
	// the date range's custom, and the session's setting is back to auto.
	var schema string
	if err := pool.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	cfg, err := pgxpool.ParseConfig(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.MaxConns = 1
	one, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	single := postgres.NewPayments(one)
	from, to := monthStart(oldAt, 0), monthStart(oldAt, 1).Add(-time.Millisecond)
	for _, f := range []payment.ListFilter{{MerchantCID: "cid-shared"}, {From: &from, To: &to, Statuses: []payment.Status{2}}} {
		f.CollabID, f.Page, f.Take, f.IncludeTotals, f.Scope = collab, 1, 20, true, merchant.Scope{All: true}
		if _, err := single.List(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	type planned struct{ generic, custom int64 }
	plans := map[string]planned{}
	rows, err := one.Query(ctx, `SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var st string
		var p planned
		if err := rows.Scan(&st, &p.generic, &p.custom); err != nil {
			t.Fatal(err)
		}
		plans[st] = p
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var exact, ranged int
	for st, p := range plans {
		switch {
		case strings.Contains(st, "merchant_client_id = $"):
			exact++
			if p.generic == 0 || p.custom != 0 {
				t.Errorf("exact match planned %d generic, %d custom; want generic only:\n%s", p.generic, p.custom, st)
			}
		case strings.Contains(st, "created_at >= $") && strings.Contains(st, "FROM transactions"):
			ranged++
			if p.generic != 0 || p.custom == 0 {
				t.Errorf("date range planned %d generic, %d custom; want custom only:\n%s", p.generic, p.custom, st)
			}
		}
	}
	if exact != 2 || ranged == 0 {
		t.Errorf("prepared statements: %d of the exact match (want its count and page), %d of the date range (want some)", exact, ranged)
	}
	var mode string
	if err := one.QueryRow(ctx, `SHOW plan_cache_mode`).Scan(&mode); err != nil || mode != "auto" {
		t.Errorf("plan_cache_mode after List = %q, %v; want auto", mode, err)
	}
}

func ptr[T any](v T) *T { return &v }
