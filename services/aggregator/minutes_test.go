package main

import (
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"testing"
	"time"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

// TestStatisticsOnWholeMinutes: ranges whose ends are not on whole hours
// (issue 29) answer what a brute-force sum over the transactions answers,
// status moves and redeliveries included; the minute parts of a range more
// than 48 hours ago are refused.
func TestStatisticsOnWholeMinutes(t *testing.T) {
	s := start(t)
	cur := fmt.Sprintf("M%c%c", 'A'+mrand.IntN(26), 'A'+mrand.IntN(26))
	// Rates as TestStatisticsEqualGroundTruth's (checkRange converts at
	// 1/4 after 2026-03-12).
	s.publish(t, &eventsv1.CurrencyRateSet{RateId: 1, Currency: cur, UsdRate: "0.5", EffectiveFrom: "2026-03-11"})
	s.publish(t, &eventsv1.CurrencyRateSet{RateId: 2, Currency: cur, UsdRate: "0.25", EffectiveFrom: "2026-03-12"})
	now := time.Now().UTC().Truncate(time.Minute)
	m1, m2 := merchSeq.Add(1), merchSeq.Add(1)
	rng := mrand.New(mrand.NewPCG(3, 4))
	finals := map[int64]tx{}
	var events []tx
	statuses := []int32{4, -1, -2, -6, 1, 0, -3, 2, 300}
	for range 300 {
		created := now.Add(-47*time.Hour + time.Duration(rng.IntN(47*3600))*time.Second)
		x := tx{id: idSeq.Add(1), version: 1, created: created, merchant: []int32{m1, m2}[rng.IntN(2)], provider: int32(1 + rng.IntN(3)),
			status: 3, typ: int32(1 + rng.IntN(2)), currency: []string{"USD", cur}[rng.IntN(2)],
			amount: fmt.Sprintf("%d.%02d", 1+rng.IntN(1000), rng.IntN(100))}
		events = append(events, x)
		for range rng.IntN(3) {
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
	time.Sleep(200 * time.Millisecond)
	h := now.Truncate(time.Hour)
	ranges := [][2]time.Time{
		{now.Add(-15 * time.Minute), now.Add(time.Minute)},                            // Last 15 minutes
		{now.Add(-59 * time.Minute), now.Add(time.Minute)},                            // Last hour
		{h.Add(-5*time.Hour + 7*time.Minute), h.Add(-5*time.Hour + 43*time.Minute)},   // inside one hour
		{h.Add(-30*time.Hour + 13*time.Minute), h.Add(-2*time.Hour + 51*time.Minute)}, // minutes, hours, a day boundary
		{h.Add(-46 * time.Hour), h.Add(-3*time.Hour + 17*time.Minute)},                // from on an hour, to on a minute
		{h.Add(-40*time.Hour + 1*time.Minute), h.Add(-1 * time.Hour)},                 // from on a minute, to on an hour
	}
	check := func() {
		for _, r := range ranges {
			t.Run(r[0].Format(time.RFC3339)+"/"+r[1].Format(time.RFC3339), func(t *testing.T) {
				checkRange(t, s, finals, cur, r[0], r[1])
			})
		}
	}
	check()
	for _, e := range events {
		s.send(t, e)
	}
	marker := tx{id: idSeq.Add(1), version: 1, created: now.Add(-72 * time.Hour), merchant: m1, provider: 1, status: 3, typ: 1, currency: "USD", amount: "1"}
	s.send(t, marker)
	s.waitApplied(t, map[int64]int64{marker.id: 1})
	check()

	old := now.Add(-72 * time.Hour).Truncate(time.Hour)
	code, body := get(t, s, admin(t), http.MethodGet, statsPath(old.Add(10*time.Minute), old.Add(2*time.Hour), ""), "")
	if code != http.StatusBadRequest || !contains(body["message"], "from must fall on a whole hour") {
		t.Errorf("an old minute-edged range: %d %v", code, body)
	}
	code, body = get(t, s, admin(t), http.MethodGet, statsPath(old, old.Add(2*time.Hour+10*time.Minute), ""), "")
	if code != http.StatusBadRequest || !contains(body["message"], "to must end one millisecond before a whole hour") {
		t.Errorf("an old minute-edged range: %d %v", code, body)
	}
}
