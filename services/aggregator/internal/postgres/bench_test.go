package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/aggregator/internal/postgres"
	"github.com/paygate/paygate/services/aggregator/internal/statistics"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// yearMerchants is how many merchants loadYear makes: 20, where the bench
// stack's demo data has 3.
const yearMerchants = 20

// loadYear fills the rollups with a year of synthetic figures: 20 merchants,
// both types, USD and PHP (a rate every day), the cash rollup for every
// offset (about 1.4 M rows), the day and month rollups with 3 providers and
// 3 statuses (about 270 k rows), and the hour rollup with 2 statuses
// (about 700 k rows).
func loadYear(tb testing.TB, pool *pgxpool.Pool, first time.Time) {
	tb.Helper()
	ctx := context.Background()
	stmts := []string{
		`INSERT INTO merchants SELECT m, 'Merchant ' || m FROM generate_series(1, yearMerchants) m`,
		`INSERT INTO providers SELECT p, 'Provider ' || p FROM generate_series(1, 3) p`,
		`INSERT INTO rates SELECT 'PHP', d::date, 0.017 + (extract(doy FROM d) % 7) / 10000.0, extract(epoch FROM d)::bigint
			FROM generate_series($1::date - 1, $1::date + 367, '1 day') d`,
		`INSERT INTO stats_cash
			SELECT o, d::date + k, d::date, m, ty, cur, 1 + (m * 7 + o + 30) % 50, ((m * 7919 + ty * 104729 + o) % 100000) / 100.0
			FROM generate_series($1::date - 1, $1::date + 367, '1 day') d, generate_series(-12, 12) o,
				LATERAL (SELECT DISTINCT k FROM unnest(ARRAY[0, sign(o)::int]) k) ks,
				generate_series(1, yearMerchants) m, generate_series(1, 2) ty, unnest(ARRAY['USD', 'PHP']) cur`,
		`INSERT INTO stats_day
			SELECT d, m, m, p, s, ty, cur, 1 + (m + p + s) % 40, ((m * 7919 + p * 31 + s) % 100000) / 100.0
			FROM generate_series($1::timestamptz - interval '1 day', $1::timestamptz + interval '367 days', '1 day') d,
				generate_series(1, yearMerchants) m, generate_series(1, 3) p, unnest(ARRAY[4, -3, 3]) s, generate_series(1, 2) ty, unnest(ARRAY['USD', 'PHP']) cur`,
		`INSERT INTO stats_month
			SELECT date_trunc('month', bucket AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', merchant_id, collab_id, provider_id, status, transaction_type, currency, sum(n), sum(amount)
			FROM stats_day GROUP BY 1, 2, 3, 4, 5, 6, 7`,
		`INSERT INTO stats_hour
			SELECT h, m, m, 1, s, ty, 'USD', 1 + (m + s) % 5, ((m * 7919 + s) % 10000) / 100.0
			FROM generate_series($1::timestamptz - interval '1 day', $1::timestamptz + interval '367 days', '1 hour') h,
				generate_series(1, yearMerchants) m, unnest(ARRAY[4, -3]) s, generate_series(1, 2) ty`,
		`VACUUM ANALYZE stats_cash, stats_day, stats_month, stats_hour, rates`,
	}
	for _, s := range stmts {
		s = strings.ReplaceAll(s, "yearMerchants", fmt.Sprint(yearMerchants))
		var args []any
		if strings.Contains(s, "$1") {
			args = []any{first}
		}
		if _, err := pool.Exec(ctx, s, args...); err != nil {
			tb.Fatalf("load a year: %v\n%s", err, s)
		}
	}
}

// BenchmarkFigures answers a 365-day range (plus one with a partial last
// day) in UTC and UTC+8 from a year of synthetic rollups, for an admin and
// for a merchant user of 2 merchants, converting to USD, and reports the
// p95 of the whole statistics call. It also checks that the cash query reads
// the cash rollup through its primary key.
func BenchmarkFigures(b *testing.B) {
	pool, _ := pgtest.Schema(b, postgres.Migrations)
	first := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	start := time.Now()
	loadYear(b, pool, first)
	var rows int64
	_ = pool.QueryRow(context.Background(), `SELECT count(*) FROM stats_cash`).Scan(&rows)
	b.Logf("loaded a year (%d cash rollup rows) in %s", rows, time.Since(start).Round(time.Second))
	svc := statistics.NewService(postgres.NewStore(pool))

	for _, off := range []int{0, 8} {
		zone := time.FixedZone(fmt.Sprintf("UTC%+d", off), off*3600)
		from := time.Date(2025, 6, 10, 0, 0, 0, 0, zone)
		for _, c := range []struct {
			name  string
			to    time.Time
			scope statistics.Scope
		}{
			{"365d/admin", from.AddDate(0, 0, 365), statistics.Scope{Global: true}},
			{"365d/merchant", from.AddDate(0, 0, 365), statistics.Scope{Merchants: []int32{3, 11}}},
			{"364d+13h/admin", from.AddDate(0, 0, 364).Add(13 * time.Hour), statistics.Scope{Global: true}},
			{"1d/admin", from.AddDate(0, 0, 1), statistics.Scope{Global: true}},
		} {
			req := statistics.Request{Currency: "USD", From: from.Format(time.RFC3339Nano), To: c.to.Add(-time.Millisecond).Format(time.RFC3339Nano)}
			b.Run(fmt.Sprintf("%s/%s", zone, c.name), func(b *testing.B) {
				r, err := statistics.ParseRange(req.From, req.To)
				if err != nil {
					b.Fatal(err)
				}
				explainCash(b, pool, statistics.Query{Range: r, Currency: "USD", Cash: statistics.PlanCash(r)})
				lat := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for range b.N {
					t0 := time.Now()
					st, err := svc.Get(context.Background(), c.scope, req)
					if err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t0))
					if st.CashIn.Count == 0 {
						b.Fatal("no cash in")
					}
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "p95-ms")
			})
		}
	}
}

// explainCash fails when the cash query does not read stats_cash by its
// primary key.
func explainCash(b *testing.B, pool *pgxpool.Pool, q statistics.Query) {
	b.Helper()
	sql, args := postgres.CashQuery(q)
	rows, err := pool.Query(context.Background(), "EXPLAIN "+sql, args...)
	if err != nil {
		b.Fatal(err)
	}
	var plan strings.Builder
	for rows.Next() {
		var line string
		_ = rows.Scan(&line)
		plan.WriteString(line + "\n")
	}
	rows.Close()
	if !strings.Contains(plan.String(), "stats_cash_pkey") || strings.Contains(plan.String(), "Seq Scan on stats_cash") {
		b.Fatalf("the cash query does not read stats_cash by its key:\n%s", plan.String())
	}
}

// BenchmarkApply applies batches of 500 synthetic transaction events
// through the apply path: a batch of 500 created events (Pending), then a
// batch of the same transactions' finalized events (7 in 10 successful), and
// reports events per second. The ceiling beside it is a plain unnest INSERT
// of as many rows, in as many statements, into an unindexed table.
func BenchmarkApply(b *testing.B) {
	ctx := context.Background()
	pool, _ := pgtest.Schema(b, postgres.Migrations)
	store := postgres.NewStore(pool)
	if _, err := pool.Exec(ctx, `CREATE UNLOGGED TABLE bare (id bigint, version bigint, created_at timestamptz, merchant_id int,
		provider_id int, status int, transaction_type int, currency text, amount numeric)`); err != nil {
		b.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `ALTER TABLE bare SET LOGGED`); err != nil {
		b.Fatal(err)
	}
	const size = 500
	rng := rand.New(rand.NewPCG(5, 0))
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	var next int64
	batches := func() (created, finalized []statistics.State) {
		for range size {
			next++
			s := statistics.State{ID: next, Version: 1, CreatedAt: base.Add(time.Duration(next) * 7 * time.Millisecond),
				MerchantID: int32(1 + rng.IntN(3)), CollabID: int32(1 + rng.IntN(6)), ProviderID: int32(1 + rng.IntN(3)),
				MerchantName: "Merchant", ProviderName: "Provider", Status: statistics.StatusPending, Type: int32(1 + rng.IntN(2)),
				Currency: []string{"USD", "PHP"}[rng.IntN(2)], Amount: fmt.Sprintf("%d.%02d", rng.IntN(100000), rng.IntN(100))}
			s.UpdatedAt = s.CreatedAt
			created = append(created, s)
			s.Version, s.UpdatedAt = 2, s.UpdatedAt.Add(time.Second)
			s.Status = []int32{4, 4, 4, 4, 4, 4, 4, -3, -2, -1}[rng.IntN(10)]
			finalized = append(finalized, s)
		}
		return created, finalized
	}
	b.Run("apply", func(b *testing.B) {
		events := 0
		var elapsed time.Duration
		for range b.N {
			created, finalized := batches()
			t0 := time.Now()
			for _, batch := range [][]statistics.State{created, finalized} {
				if n, err := store.Apply(ctx, batch); err != nil || n != size {
					b.Fatalf("applied %d of %d: %v", n, size, err)
				}
			}
			elapsed += time.Since(t0)
			events += 2 * size
		}
		b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	})
	b.Run("ceiling", func(b *testing.B) {
		events := 0
		var elapsed time.Duration
		for range b.N {
			created, finalized := batches()
			t0 := time.Now()
			for _, batch := range [][]statistics.State{created, finalized} {
				var (
					ids, versions             []int64
					at                        []time.Time
					merchants, providers, sts []int32
					types                     []int32
					currencies, amounts       []string
				)
				for _, s := range batch {
					ids, versions, at = append(ids, s.ID), append(versions, s.Version), append(at, s.CreatedAt)
					merchants, providers, sts = append(merchants, s.MerchantID), append(providers, s.ProviderID), append(sts, s.Status)
					types, currencies, amounts = append(types, s.Type), append(currencies, s.Currency), append(amounts, s.Amount)
				}
				if _, err := pool.Exec(ctx, `INSERT INTO bare SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::timestamptz[],
					$4::int[], $5::int[], $6::int[], $7::int[], $8::text[], $9::text[]::numeric[])`,
					ids, versions, at, merchants, providers, sts, types, currencies, amounts); err != nil {
					b.Fatal(err)
				}
			}
			elapsed += time.Since(t0)
			events += 2 * size
		}
		b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
	})
}
