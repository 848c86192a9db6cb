package postgres_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/paygate/paygate/services/aggregator/internal/postgres"
	"github.com/paygate/paygate/services/aggregator/internal/statistics"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// truth is a brute-force answer over the final states.
type truth struct {
	counts      map[statistics.Family]int64
	total       int64
	cash        map[int32]*big.Rat         // by type
	cashN       map[int32]int64            // by type, converted or not
	days        map[int32]map[int]*big.Rat // by type, series day
	merchants   map[int32]map[int32]*big.Rat
	unconverted map[string]*big.Rat // "currency type"
}

// rateOn returns the USD rate of currency on the UTC day of t, or nil.
type rateOn func(currency string, t time.Time) *big.Rat

func groundTruth(finals []statistics.State, from, to time.Time, merchants []int32, rate rateOn) truth {
	tr := truth{counts: map[statistics.Family]int64{}, cash: map[int32]*big.Rat{}, cashN: map[int32]int64{},
		days: map[int32]map[int]*big.Rat{}, merchants: map[int32]map[int32]*big.Rat{}, unconverted: map[string]*big.Rat{}}
	add := func(m map[int32]*big.Rat, k int32, a *big.Rat) {
		if m[k] == nil {
			m[k] = new(big.Rat)
		}
		m[k].Add(m[k], a)
	}
	for _, s := range finals {
		if s.CreatedAt.Before(from) || !s.CreatedAt.Before(to) || (merchants != nil && !slices.Contains(merchants, s.MerchantID)) {
			continue
		}
		tr.total++
		tr.counts[statistics.FamilyOf(s.Status)]++
		if !statistics.Successful(s) {
			continue
		}
		tr.cashN[s.Type]++
		a, _ := new(big.Rat).SetString(s.Amount)
		if s.Currency != "USD" {
			r := rate(s.Currency, s.CreatedAt)
			if r == nil {
				k := s.Currency + " " + fmt.Sprint(s.Type)
				if tr.unconverted[k] == nil {
					tr.unconverted[k] = new(big.Rat)
				}
				tr.unconverted[k].Add(tr.unconverted[k], a)
				continue
			}
			a.Mul(a, r)
		}
		add(tr.cash, s.Type, a)
		if tr.days[s.Type] == nil {
			tr.days[s.Type] = map[int]*big.Rat{}
		}
		day := int(s.CreatedAt.Sub(from) / (24 * time.Hour))
		if tr.days[s.Type][day] == nil {
			tr.days[s.Type][day] = new(big.Rat)
		}
		tr.days[s.Type][day].Add(tr.days[s.Type][day], a)
		if tr.merchants[s.Type] == nil {
			tr.merchants[s.Type] = map[int32]*big.Rat{}
		}
		add(tr.merchants[s.Type], s.MerchantID, a)
	}
	return tr
}

func cents(r *big.Rat) string {
	if r == nil {
		return "0.00"
	}
	return r.FloatString(2)
}

func gotCents(t *testing.T, s string) string {
	t.Helper()
	var r big.Rat
	if _, ok := r.SetString(s); !ok {
		t.Fatalf("amount %q is not a decimal", s)
	}
	return r.FloatString(2)
}

// TestFiguresEqualGroundTruth applies status histories of transactions
// spread over four months (shuffled, every batch applied twice), then
// compares ranges longer than a month (so that the month rollup and the
// cash rollup answer them), whole days and a partial last day, at UTC-12,
// UTC, UTC+8 and UTC+12, admin and merchant scope, with a brute-force sum.
func TestFiguresEqualGroundTruth(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	store := postgres.NewStore(pool)
	svc := statistics.NewService(store)

	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := func(n int) time.Time { return start.AddDate(0, 0, n) }
	// PHP has a rate from day 10, changed on day 40; QQQ from day 60 only:
	// before, its amounts are unconverted.
	rates := []statistics.Rate{
		{ID: 1, Currency: "PHP", EffectiveFrom: day(10), USDRate: "0.0175"},
		{ID: 2, Currency: "PHP", EffectiveFrom: day(40), USDRate: "0.01834"},
		{ID: 3, Currency: "QQQ", EffectiveFrom: day(60), USDRate: "3"},
	}
	if err := store.ApplyRates(ctx, rates); err != nil {
		t.Fatal(err)
	}
	rate := func(cur string, at time.Time) *big.Rat {
		var in *big.Rat
		for _, r := range rates {
			if r.Currency == cur && !r.EffectiveFrom.After(at) {
				in, _ = new(big.Rat).SetString(r.USDRate)
			}
		}
		return in
	}

	rng := rand.New(rand.NewPCG(1, 4))
	statuses := []int32{4, 4, 4, -1, -2, -3, -6, 1, 0, 2, 300}
	var events, finals []statistics.State
	for id := int64(1); id <= 3000; id++ {
		s := statistics.State{ID: id, Version: 1, CreatedAt: start.Add(-13*time.Hour + time.Duration(rng.IntN(125*24*60))*time.Minute),
			MerchantID: int32(1 + rng.IntN(4)), CollabID: int32(10 + rng.IntN(2)), ProviderID: int32(1 + rng.IntN(3)),
			Status: 3, Type: int32(1 + rng.IntN(2)), Currency: []string{"USD", "PHP", "QQQ"}[rng.IntN(3)],
			Amount: fmt.Sprintf("%d.%03d", rng.IntN(100000), rng.IntN(1000))}
		s.UpdatedAt = s.CreatedAt
		events = append(events, s)
		for range rng.IntN(4) { // status moves, some an override after success
			s.Version++
			s.Status = statuses[rng.IntN(len(statuses))]
			events = append(events, s)
		}
		finals = append(finals, s)
	}
	rng.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	for i := 0; i < len(events); i += 250 {
		batch := events[i:min(i+250, len(events))]
		for range 2 { // a redelivery changes nothing
			if _, err := store.Apply(ctx, batch); err != nil {
				t.Fatal(err)
			}
		}
	}

	type rng2 struct {
		name     string
		from, to time.Time
	}
	for _, off := range []int{-12, 0, 8, 12} {
		zone := time.FixedZone(fmt.Sprintf("UTC%+d", off), off*3600)
		from := time.Date(2026, 1, 3, 0, 0, 0, 0, zone)
		for _, r := range []rng2{
			{"45 days", from, from.AddDate(0, 0, 45)},
			{"90 days and 5 hours", from, from.AddDate(0, 0, 90).Add(5 * time.Hour)},
			{"366 days", time.Date(2025, 12, 1, 0, 0, 0, 0, zone), time.Date(2025, 12, 1, 0, 0, 0, 0, zone).AddDate(0, 0, 366)},
		} {
			for _, scope := range []statistics.Scope{{Global: true}, {Merchants: []int32{2, 4}}} {
				t.Run(fmt.Sprintf("%s/%s/global=%v", zone, r.name, scope.Global), func(t *testing.T) {
					st, err := svc.Get(ctx, scope, statistics.Request{Currency: "USD",
						From: r.from.Format(time.RFC3339Nano), To: r.to.Add(-time.Millisecond).Format(time.RFC3339Nano)})
					if err != nil {
						t.Fatal(err)
					}
					var merchants []int32
					if !scope.Global {
						merchants = scope.Merchants
					}
					checkTruth(t, st, groundTruth(finals, r.from, r.to, merchants, rate), scope.Global)
				})
			}
		}
	}
}

func checkTruth(t *testing.T, st statistics.Statistics, tr truth, global bool) {
	t.Helper()
	for name, p := range map[string][2]int64{
		"total":            {st.Total, tr.total},
		"successful":       {st.Successful, tr.counts[statistics.FamilySuccessful]},
		"failed":           {st.Failed, tr.counts[statistics.FamilyFailed]},
		"pending":          {st.Pending, tr.counts[statistics.FamilyPending]},
		"validationFailed": {st.ValidationFailed, tr.counts[statistics.FamilyValidationFailed]},
		"pspError":         {st.PSPError, tr.counts[statistics.FamilyPSPError]},
		"cancelled":        {st.Cancelled, tr.counts[statistics.FamilyCancelled]},
		"notConfirmed":     {st.NotConfirmed, tr.counts[statistics.FamilyNotConfirmed]},
	} {
		if p[0] != p[1] {
			t.Errorf("%s = %d, want %d", name, p[0], p[1])
		}
	}
	for typ, flow := range map[int32]statistics.CashFlow{statistics.TypeDeposit: st.CashIn, statistics.TypeWithdrawal: st.CashOut} {
		if g, w := gotCents(t, flow.Amount), cents(tr.cash[typ]); g != w {
			t.Errorf("type %d amount = %s, want %s", typ, g, w)
		}
		if flow.Count != tr.cashN[typ] {
			t.Errorf("type %d count = %d, want %d", typ, flow.Count, tr.cashN[typ])
		}
		if len(flow.Days) != st.Range.Days() {
			t.Errorf("type %d has %d days, want %d", typ, len(flow.Days), st.Range.Days())
		}
		for i, d := range flow.Days {
			if g, w := gotCents(t, d.Amount), cents(tr.days[typ][i]); g != w {
				t.Errorf("type %d day %d (%v) = %s, want %s", typ, i, d.Start, g, w)
			}
		}
		byMerchant := st.CashInByMerchant
		if typ == statistics.TypeWithdrawal {
			byMerchant = st.CashOutByMerchant
		}
		if !global {
			if len(byMerchant) != 0 {
				t.Errorf("type %d: per-merchant cash shown to a merchant user: %v", typ, byMerchant)
			}
			continue
		}
		if len(byMerchant) != len(tr.merchants[typ]) {
			t.Errorf("type %d: %d merchants, want %d", typ, len(byMerchant), len(tr.merchants[typ]))
		}
		for _, m := range byMerchant {
			if g, w := gotCents(t, m.Amount), cents(tr.merchants[typ][m.ID]); g != w {
				t.Errorf("type %d merchant %d = %s, want %s", typ, m.ID, g, w)
			}
		}
	}
	got := map[string]string{}
	for _, u := range st.Unconverted {
		got[u.Currency+" "+fmt.Sprint(u.Type)] = u.Amount
	}
	if len(got) != len(tr.unconverted) {
		t.Errorf("unconverted = %v, want %v", got, tr.unconverted)
	}
	for k, w := range tr.unconverted {
		var g big.Rat
		if _, ok := g.SetString(got[k]); !ok || g.Cmp(w) != 0 {
			t.Errorf("unconverted %s = %s, want %s (exact)", k, got[k], w.FloatString(3))
		}
	}
}

// TestNeedsRebuild reads every state the progress row can be in; none
// leaves the answer NULL (a rebuild finished without a start did, and
// failed every aggregator.rebuild run after it, issue 25).
func TestNeedsRebuild(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	store := postgres.NewStore(pool)
	ctx := context.Background()
	t1 := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Hour)
	for _, c := range []struct {
		name              string
		started, finished *time.Time
		want              bool
	}{
		{"never rebuilt", nil, nil, true},
		{"finished without a start (no transactions)", nil, &t1, false},
		{"started, never finished", &t1, nil, true},
		{"started after the last finish", &t2, &t1, true},
		{"finished after its start", &t1, &t2, false},
	} {
		if _, err := pool.Exec(ctx, `UPDATE progress SET rebuild_started_at = $1, rebuild_finished_at = $2`, c.started, c.finished); err != nil {
			t.Fatal(err)
		}
		got, err := store.NeedsRebuild(ctx)
		if err != nil || got != c.want {
			t.Errorf("%s: NeedsRebuild = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

// TestFiguresNamesAndAsOf: the names of the merchants and providers the
// figures meet and the newest event time come with them (Figures reads them
// in a second round trip, after the counts and amounts), and a failed read
// leaves no connection in its transaction.
func TestFiguresNamesAndAsOf(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	store := postgres.NewStore(pool)
	svc := statistics.NewService(store)

	at := time.Now().UTC().Add(-2 * time.Hour).Truncate(time.Second)
	states := []statistics.State{
		{ID: 1, Version: 1, CreatedAt: at, UpdatedAt: at, MerchantID: 7, MerchantName: "Seven Games", CollabID: 1,
			ProviderID: 3, ProviderName: "Three Pay", Status: 4, Type: 1, Currency: "USD", Amount: "10.00"},
		{ID: 2, Version: 1, CreatedAt: at, UpdatedAt: at.Add(time.Minute), MerchantID: 8, MerchantName: "Eight Bets", CollabID: 1,
			ProviderID: 4, ProviderName: "Four Cash", Status: 1, Type: 2, Currency: "USD", Amount: "5.00"},
	}
	if _, err := store.Apply(ctx, states); err != nil {
		t.Fatal(err)
	}
	req := statistics.Request{Currency: "USD", From: at.Truncate(time.Hour).Add(-time.Hour).Format(time.RFC3339Nano),
		To: time.Now().UTC().Truncate(time.Minute).Add(time.Minute - time.Millisecond).Format(time.RFC3339Nano)}
	get := func() statistics.Statistics {
		t.Helper()
		st, err := svc.Get(ctx, statistics.Scope{Global: true}, req)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := get()
	merchants := map[int32]string{}
	for _, m := range st.ByMerchant {
		merchants[m.ID] = m.Name
	}
	providers := map[int32]string{}
	for _, p := range st.ByProvider {
		providers[p.ID] = p.Name
	}
	if merchants[7] != "Seven Games" || merchants[8] != "Eight Bets" || providers[3] != "Three Pay" || providers[4] != "Four Cash" {
		t.Errorf("names: merchants %v, providers %v", merchants, providers)
	}
	if !st.AsOf.Equal(at.Add(time.Minute)) {
		t.Errorf("as of %v, want %v", st.AsOf, at.Add(time.Minute))
	}

	// A read that fails mid-way (the rates table gone) leaves the pool's
	// connections idle or closed, never in a transaction; the next read of
	// a working schema succeeds.
	if _, err := pool.Exec(ctx, `ALTER TABLE rates RENAME TO rates_gone`); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Get(ctx, statistics.Scope{Global: true}, req); err == nil {
		t.Fatal("a read without the rates table succeeded")
	}
	if _, err := pool.Exec(ctx, `ALTER TABLE rates_gone RENAME TO rates`); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if st := get(); st.Total != 2 {
			t.Fatalf("total %d after a failed read, want 2", st.Total)
		}
	}
}
