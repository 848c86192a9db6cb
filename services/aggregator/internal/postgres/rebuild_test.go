package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/paygate/paygate/services/aggregator/internal/postgres"
	"github.com/paygate/paygate/services/aggregator/internal/statistics"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// TestRebuildWhileEventsFlow checks that a rebuild (Reset, PutStates, then
// BuildRollups) gives the rollups that applying every event gives, while
// the live consumer applies the same events beside it. Two schemas get the
// same transactions: in the first every event is applied (the live path
// alone); in the second a rebuild stores a snapshot in which each
// transaction is at some version of its history (what the gateway streamed)
// while the live path applies every event (shuffled, half of them twice)
// before, during and after the pages and BuildRollups; then a later status move of some
// transactions is applied to both. The transactions are spread over a year
// with their ids in random order, and some were made in the last hours (the
// minute rollup). Every rollup row and every state must be equal.
func TestRebuildWhileEventsFlow(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	livePool, _ := pgtest.Schema(t, postgres.Migrations)
	rebuiltPool, _ := pgtest.Schema(t, postgres.Migrations)
	live, rebuilt := postgres.NewStore(livePool), postgres.NewStore(rebuiltPool)

	rng := rand.New(rand.NewPCG(7, 31))
	now := time.Now().UTC()
	statuses := []int32{4, 4, 4, -1, -2, -3, -6, 1, 0, 2, 300}
	var events, snapshot, later []statistics.State
	for id := int64(1); id <= 4000; id++ {
		created := now.Add(-time.Duration(rng.IntN(365*24*60)) * time.Minute)
		if rng.IntN(5) == 0 {
			created = now.Add(-time.Duration(rng.IntN(20*60)) * time.Minute)
		}
		s := statistics.State{ID: id, Version: 1, CreatedAt: created, UpdatedAt: created,
			MerchantID: int32(1 + rng.IntN(3)), CollabID: int32(10 + rng.IntN(2)), ProviderID: int32(1 + rng.IntN(3)),
			MerchantName: "M", ProviderName: "P", Status: 3, Type: int32(1 + rng.IntN(2)),
			Currency: []string{"USD", "PHP"}[rng.IntN(2)], Amount: fmt.Sprintf("%d.%02d", rng.IntN(100000), rng.IntN(100))}
		history := []statistics.State{s}
		for range rng.IntN(4) {
			s.Version++
			s.Status = statuses[rng.IntN(len(statuses))]
			history = append(history, s)
		}
		events = append(events, history...)
		// The gateway streamed some version of it (the newest, mostly);
		// the rebuild may also not see a transaction made after its id
		// range was read (only the live path has it).
		switch v := rng.IntN(10); {
		case v == 0 && id > 3900:
		case v < 3:
			snapshot = append(snapshot, history[rng.IntN(len(history))])
		default:
			snapshot = append(snapshot, s)
		}
		if rng.IntN(10) == 0 {
			s.Version++
			s.Status = statuses[rng.IntN(len(statuses))]
			later = append(later, s)
		}
	}
	rng.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })

	// apply applies events in batches of 200; a batch that loses a
	// deadlock is applied again, as the consumer's stream delivers it again.
	apply := func(store *postgres.Store, evs []statistics.State, twice bool) error {
		for i := 0; i < len(evs); i += 200 {
			batch := evs[i:min(i+200, len(evs))]
			for range map[bool]int{false: 1, true: 2}[twice] {
				for attempt := 1; ; attempt++ {
					_, err := store.Apply(ctx, batch)
					var pgErr *pgconn.PgError
					if err == nil {
						break
					}
					if attempt == 5 || !errors.As(err, &pgErr) || pgErr.Code != "40P01" {
						return err
					}
				}
			}
		}
		return nil
	}
	if err := apply(live, events, false); err != nil {
		t.Fatal(err)
	}

	// The rebuild's schema had other states before the reset.
	if err := apply(rebuilt, events[:1000], false); err != nil {
		t.Fatal(err)
	}
	if err := rebuilt.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	// Half the events arrive before the rebuild's pages (some of them
	// newer than what the pages carry), the other half beside them, each
	// delivered twice.
	if err := apply(rebuilt, events[:len(events)/2], false); err != nil {
		t.Fatal(err)
	}
	var g errgroup.Group
	g.Go(func() error { return apply(rebuilt, events[len(events)/2:], true) })
	g.Go(func() error {
		// Pages in id order, as the replay streams them, 4 in flight.
		var pg errgroup.Group
		for i := 0; i < len(snapshot); i += 500 {
			page := snapshot[i:min(i+500, len(snapshot))]
			pg.Go(func() error {
				_, err := rebuilt.PutStates(ctx, page)
				return err
			})
		}
		if err := pg.Wait(); err != nil {
			return err
		}
		return rebuilt.BuildRollups(ctx, statistics.MinuteHorizon(time.Now()))
	})
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	if need, err := rebuilt.NeedsRebuild(ctx); err != nil || need {
		t.Fatalf("NeedsRebuild after the rebuild = %v, %v; want false", need, err)
	}
	if err := apply(live, later, false); err != nil {
		t.Fatal(err)
	}
	if err := apply(rebuilt, later, true); err != nil {
		t.Fatal(err)
	}

	for _, q := range []string{
		`SELECT id, version, created_hour, created_minute, merchant_id, collab_id, provider_id, status, transaction_type, currency, amount FROM tx_state`,
		`SELECT bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, trim_scale(amount) FROM stats_hour WHERE n <> 0 OR amount <> 0`,
		`SELECT bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, trim_scale(amount) FROM stats_day WHERE n <> 0 OR amount <> 0`,
		`SELECT bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, trim_scale(amount) FROM stats_month WHERE n <> 0 OR amount <> 0`,
		`SELECT bucket, merchant_id, collab_id, provider_id, status, transaction_type, currency, n, trim_scale(amount) FROM stats_minute WHERE n <> 0 OR amount <> 0`,
		`SELECT utc_offset, local_day, utc_day, merchant_id, transaction_type, currency, n, trim_scale(amount) FROM stats_cash WHERE n <> 0 OR amount <> 0`,
		`SELECT * FROM merchants`,
		`SELECT * FROM providers`,
		`SELECT as_of FROM progress`,
	} {
		want, got := rowsOf(ctx, t, livePool, q), rowsOf(ctx, t, rebuiltPool, q)
		if len(want) < 1 {
			t.Fatalf("%s: no rows in the live schema", q)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the rebuilt schema has %d rows, the live one %d; first difference: %s",
				q, len(got), len(want), firstDifference(got, want))
		}
	}
}

// rowsOf returns q's rows as sorted lines of text.
func rowsOf(ctx context.Context, t *testing.T, pool *pgxpool.Pool, q string) []string {
	t.Helper()
	rows, err := pool.Query(ctx, `SELECT row(x.*)::text FROM (`+q+`) x`)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func firstDifference(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("rebuilt %s, live %s", got[i], want[i])
		}
	}
	return "one is a prefix of the other"
}
