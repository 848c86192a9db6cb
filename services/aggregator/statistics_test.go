package main

import (
	"fmt"
	"math/big"
	mrand "math/rand/v2"
	"net/http"
	"testing"
	"time"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/aggregator/internal/statistics"
	"github.com/paygate/paygate/services/internal/access"
)

// TestStatisticsEqualGroundTruth sends status histories out of order and
// twice (a redelivery), then checks the figures of ranges in several
// timezones against a brute-force sum over the final states.
func TestStatisticsEqualGroundTruth(t *testing.T) {
	s := start(t)
	cur := fmt.Sprintf("Q%c%c", 'A'+mrand.IntN(26), 'A'+mrand.IntN(26))
	base := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	// The test currency has a rate from base+1 day: earlier amounts stay
	// unconverted.
	s.publish(t, &eventsv1.CurrencyRateSet{RateId: 1, Currency: cur, UsdRate: "0.5", EffectiveFrom: base.AddDate(0, 0, 1).Format(time.DateOnly)})
	s.publish(t, &eventsv1.CurrencyRateSet{RateId: 2, Currency: cur, UsdRate: "0.25", EffectiveFrom: base.AddDate(0, 0, 2).Format(time.DateOnly)})
	m1, m2 := merchSeq.Add(1), merchSeq.Add(1)
	rng := mrand.New(mrand.NewPCG(1, 2))
	finals := map[int64]tx{}
	var events []tx
	statuses := []int32{4, -1, -2, -6, 1, 0, -3, 2, 300}
	for range 300 {
		x := tx{id: idSeq.Add(1), version: 1, created: base.Add(-14*time.Hour + time.Duration(rng.IntN(4*24*60))*time.Minute),
			merchant: []int32{m1, m2}[rng.IntN(2)], provider: int32(1 + rng.IntN(3)), status: 3, typ: int32(1 + rng.IntN(2)),
			currency: []string{"USD", cur}[rng.IntN(2)], amount: fmt.Sprintf("%d.%02d", 1+rng.IntN(1000), rng.IntN(100))}
		events = append(events, x)
		for range rng.IntN(3) { // status moves, maybe an override after success
			x.version++
			x.status = statuses[rng.IntN(len(statuses))]
			events = append(events, x)
		}
		finals[x.id] = x
	}
	rng.Shuffle(len(events), func(i, j int) { events[i], events[j] = events[j], events[i] })
	for _, e := range events {
		s.send(t, e)
	}
	want := map[int64]int64{}
	for id, x := range finals {
		want[id] = x.version
	}
	s.waitApplied(t, want)
	time.Sleep(200 * time.Millisecond) // rates are a consumer of their own
	check := func() {
		for _, off := range []int{-12, 0, 8, 12} {
			zone := time.FixedZone("z", off*3600)
			from := time.Date(2026, 3, 10, 0, 0, 0, 0, zone)
			to := from.AddDate(0, 0, 2)
			t.Run(fmt.Sprintf("UTC%+d", off), func(t *testing.T) {
				checkRange(t, s, finals, cur, from, to)
			})
		}
	}
	check()
	// A redelivery of every event changes nothing.
	for _, e := range events {
		s.send(t, e)
	}
	marker := tx{id: idSeq.Add(1), version: 1, created: base.AddDate(-1, 0, 0), merchant: m1, provider: 1, status: 3, typ: 1, currency: "USD", amount: "1"}
	s.send(t, marker)
	s.waitApplied(t, map[int64]int64{marker.id: 1})
	check()
}

// checkRange compares the answer of [from, to) with a brute-force sum.
func checkRange(t *testing.T, s *service, finals map[int64]tx, cur string, from, to time.Time) {
	code, got := get(t, s, admin(t), http.MethodGet, statsPath(from, to, ""), "")
	if code != http.StatusOK {
		t.Fatalf("status %d: %v", code, got)
	}
	var total, success, pending, failed int64
	cashIn, cashInN := new(big.Rat), int64(0)
	days := map[int]*big.Rat{}
	unconv := new(big.Rat)
	for _, x := range finals {
		if x.created.Before(from) || !x.created.Before(to) {
			continue
		}
		total++
		switch statistics.FamilyOf(x.status) {
		case statistics.FamilySuccessful:
			success++
		case statistics.FamilyPending:
			pending++
		case statistics.FamilyFailed:
			failed++
		}
		if x.status != 4 || x.typ != 1 {
			continue
		}
		cashInN++
		a, _ := new(big.Rat).SetString(x.amount)
		if x.currency != "USD" {
			day := x.created.UTC().Truncate(24 * time.Hour)
			switch {
			case day.Before(time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC)):
				unconv.Add(unconv, a)
				continue
			case day.Before(time.Date(2026, 3, 12, 0, 0, 0, 0, time.UTC)):
				a.Mul(a, big.NewRat(1, 2))
			default:
				a.Mul(a, big.NewRat(1, 4))
			}
		}
		cashIn.Add(cashIn, a)
		i := int(x.created.Sub(from) / (24 * time.Hour))
		if days[i] == nil {
			days[i] = new(big.Rat)
		}
		days[i].Add(days[i], a)
	}
	for name, w := range map[string]int64{"total": total, "successful": success, "pending": pending, "failed": failed} {
		if g := num(got[name]); g != w {
			t.Errorf("%s = %d, want %d", name, g, w)
		}
	}
	in := got["cashInData"].(map[string]any)
	ratEq(t, "cashInData.amount", in["amount"].(string), cashIn)
	if g := num(in["count"]); g != cashInN {
		t.Errorf("cashInData.count = %d, want %d", g, cashInN)
	}
	for i, d := range in["days"].([]any) {
		w := days[i]
		if w == nil {
			w = new(big.Rat)
		}
		ratEq(t, fmt.Sprintf("cashInData.days[%d]", i), d.(map[string]any)["amount"].(string), w)
	}
	var gotUnconv string = "0"
	for _, u := range got["unconverted"].([]any) {
		u := u.(map[string]any)
		if u["currency"] == cur && num(u["transactionType"]) == 1 {
			gotUnconv = u["amount"].(string)
		}
	}
	ratEq(t, "unconverted", gotUnconv, unconv)
}

// TestStatisticsStatusMoves checks that Pending → Success → Failed counts
// once, in the last status, and that a late lower version is ignored.
func TestStatisticsStatusMoves(t *testing.T) {
	s := start(t)
	m := merchSeq.Add(1)
	created := time.Date(2026, 4, 2, 10, 30, 0, 0, time.UTC)
	x := tx{id: idSeq.Add(1), version: 1, created: created, merchant: m, provider: 1, status: 3, typ: 1, currency: "USD", amount: "10.00"}
	s.send(t, x)
	s.waitApplied(t, map[int64]int64{x.id: 1})
	x.version, x.status = 2, 4
	s.send(t, x)
	x.version, x.status = 3, -3
	s.send(t, x)
	s.waitApplied(t, map[int64]int64{x.id: 3})
	late := x
	late.version, late.status = 2, 4
	s.send(t, late)
	marker := tx{id: idSeq.Add(1), version: 1, created: created, merchant: m, provider: 2, status: 3, typ: 1, currency: "USD", amount: "1"}
	s.send(t, marker)
	s.waitApplied(t, map[int64]int64{marker.id: 1, x.id: 3})
	from := time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	_, got := get(t, s, admin(t), http.MethodGet, statsPath(from, from.AddDate(0, 0, 1), fmt.Sprintf("&merchantId=%d", m)), "")
	if num(got["total"]) != 2 || num(got["failed"]) != 1 || num(got["successful"]) != 0 || num(got["pending"]) != 1 {
		t.Fatalf("figures = %v", got)
	}
}

// TestStatisticsRefusals checks bad input and scope.
func TestStatisticsRefusals(t *testing.T) {
	s := start(t)
	m := merchSeq.Add(1)
	from := time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(0, 0, 1)
	bad := map[string]string{
		"/api/v1/statistics?currency=USD&from=garbage&to=2026-04-02T23:59:59.999Z":                            "from must be",
		"/api/v1/statistics?currency=USD&to=2026-04-02T23:59:59.999Z":                                         "from must be",
		"/api/v1/statistics?currency=USD&from=2026-04-02T00:00:00Z&to=nope":                                   "to must be",
		"/api/v1/statistics?currency=USD&from=2026-04-03T00:00:00Z&to=2026-04-02T23:59:59.999Z":               "to must not be before from",
		"/api/v1/statistics?currency=USD&from=2025-01-01T00:00:00Z&to=2026-04-02T23:59:59.999Z":               "at most 366 days",
		"/api/v1/statistics?currency=USD&from=2026-04-02T00:30:00Z&to=2026-04-02T23:59:59.999Z":               "whole hour",
		"/api/v1/statistics?currency=USD&from=2026-04-02T00:00:00Z&to=2026-04-02T23:59:59Z":                   "one millisecond before",
		"/api/v1/statistics?currency=ZZZ&from=2026-04-02T00:00:00Z&to=2026-04-02T23:59:59.999Z":               "currency ZZZ has no rate",
		"/api/v1/statistics?currency=usd&from=2026-04-02T00:00:00Z&to=2026-04-02T23:59:59.999Z":               "currency must be",
		"/api/v1/statistics?currency=USD&from=2026-04-02T00:00:00%2B08:00&to=2026-04-02T23:59:59.999%2B08:00": "",
		// Dates from 2025-01-01, the console's earliest, on the caller's
		// clock; the year 0000 answered 500 (issue 25: its timestamp could
		// not be encoded).
		"/api/v1/statistics?currency=USD&from=0000-01-01T00:00:00Z&to=0000-01-01T23:59:59.999Z":               "from must be a date from 2025-01-01 to 9999-12-30.",
		"/api/v1/statistics?currency=USD&from=2024-12-31T00:00:00Z&to=2025-01-01T23:59:59.999Z":               "from must be a date from 2025-01-01 to 9999-12-30.",
		"/api/v1/statistics?currency=USD&from=2025-01-01T00:00:00%2B08:00&to=2025-01-01T23:59:59.999%2B08:00": "",
		"/api/v1/statistics?currency=USD&from=9999-12-30T00:00:00Z&to=9999-12-31T23:59:59.999Z":               "to must be a date from 2025-01-01 to 9999-12-30.",
		"/api/v1/statistics?currency=USD&from=9999-12-29T00:00:00Z&to=9999-12-30T23:59:59.999Z":               "",
		// Issue 25: a negative merchant answered 200 with nothing.
		"/api/v1/statistics?currency=USD&from=2026-04-02T00:00:00Z&to=2026-04-02T23:59:59.999Z&merchantId=-1": "merchantId must not be negative.",
	}
	for path, msg := range bad {
		code, body := get(t, s, admin(t), http.MethodGet, path, "")
		if msg == "" {
			if code != http.StatusOK {
				t.Errorf("%s: %d %v", path, code, body)
			}
			continue
		}
		if code != http.StatusBadRequest || !contains(body["message"], msg) {
			t.Errorf("%s: %d %v, want 400 with %q", path, code, body, msg)
		}
	}
	var n int
	_ = s.db.QueryRow(t.Context(), "SELECT count(*) FROM "+s.schema+".tx_state").Scan(&n)
	if n != 0 {
		t.Errorf("%d states written by refused calls", n)
	}

	x := tx{id: idSeq.Add(1), version: 1, created: from.Add(time.Hour), merchant: m, provider: 1, status: 4, typ: 1, currency: "USD", amount: "5"}
	other := tx{id: idSeq.Add(1), version: 1, created: from.Add(time.Hour), merchant: merchSeq.Add(1), provider: 1, status: 4, typ: 2, currency: "USD", amount: "7"}
	s.send(t, x)
	s.send(t, other)
	s.waitApplied(t, map[int64]int64{x.id: 1, other.id: 1})
	mu := merchantUser(t, []string{access.PermStatisticsAccess}, m)
	code, got := get(t, s, mu, http.MethodGet, statsPath(from, to, ""), "")
	if code != http.StatusOK || num(got["total"]) != 1 || len(got["byMerchant"].([]any)) != 0 ||
		len(got["cashInDataByMerchant"].([]any)) != 0 || num(got["cashOutData"].(map[string]any)["count"]) != 0 {
		t.Errorf("merchant user: %d %v", code, got)
	}
	if code, got := get(t, s, mu, http.MethodGet, statsPath(from, to, fmt.Sprintf("&merchantId=%d", other.merchant)), ""); code != http.StatusNotFound {
		t.Errorf("other merchant: %d %v", code, got)
	}
	if code, _ := get(t, s, merchantUser(t, []string{access.PermGetTransactions}, m), http.MethodGet, statsPath(from, to, ""), ""); code != http.StatusForbidden {
		t.Errorf("without Statistics Access: %d", code)
	}
	_, got = get(t, s, admin(t), http.MethodGet, statsPath(from, to, ""), "")
	if len(got["byMerchant"].([]any)) < 2 || len(got["cashOutDataByMerchant"].([]any)) < 1 {
		t.Errorf("admin: %v", got)
	}
}

func contains(v any, sub string) bool {
	s, _ := v.(string)
	return len(sub) > 0 && len(s) >= len(sub) && (s == sub || indexOf(s, sub) >= 0)
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
