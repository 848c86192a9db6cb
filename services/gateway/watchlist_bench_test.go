package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/bus"
)

// TestWatchlistLatencyBench measures how long a watchlist's new value takes
// to reach an SSE client while 500 payments/s are written (issue 29:
// ≤ 2 s), beside the same run's ceiling: the bare transaction event → SSE
// latency of the same stream. It runs only with PAYGATE_BENCH_WATCHLISTS=1
// (bench/RESULTS.md, "Watchlists"); PAYGATE_BENCH_SECONDS sets the load's
// length (20 s).
//
// The load: every 100 ms, 50 transactions are inserted in one statement
// (the payment path's table, indexes and rollup triggers) and one
// transaction_created event per row is published, as the outbox relay
// does; 20 watchlists (10 distinct groups) of the client's user count them.
func TestWatchlistLatencyBench(t *testing.T) {
	if os.Getenv("PAYGATE_BENCH_WATCHLISTS") != "1" {
		t.Skip("set PAYGATE_BENCH_WATCHLISTS=1 to run the watchlist latency bench")
	}
	seconds := 20
	if s, err := strconv.Atoi(os.Getenv("PAYGATE_BENCH_SECONDS")); err == nil && s > 0 {
		seconds = s
	}
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	m := g.newMerchant(t)
	c := g.initialize(t, admin, m, 1, 1)
	u := g.user(t, access.RoleAdmin)
	var watched string
	for i := range 20 {
		body := map[string]any{"name": fmt.Sprintf("w%d", i), "metric": []string{"count", "sum", "successRate"}[i%3],
			"windowMinutes": []int{5, 15, 60, 240, 1440}[i%5], "filter": map[string]any{"collabId": c}}
		w := u.pin(t, body)
		if i == 0 {
			watched = w.ID
		}
	}
	// The client: arrival times of the watched value's counts and of the
	// transaction events.
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, g.HTTPURL+"/api/v1/transactions/stream", nil)
	req.Header.Set("Authorization", "Bearer "+u.token)
	resp, err := (&http.Client{}).Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("stream: %v %v", resp, err)
	}
	defer resp.Body.Close()
	type arrival struct {
		at    time.Time
		count int64
	}
	var (
		mu     sync.Mutex
		values []arrival
		txSeen = map[string]time.Time{}
	)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			now := time.Now()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				var d map[string]any
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d) != nil {
					continue
				}
				mu.Lock()
				switch event {
				case "watchlist":
					if d["watchlistId"] == watched {
						n, _ := strconv.ParseInt(fmt.Sprint(d["count"]), 10, 64)
						values = append(values, arrival{now, n})
					}
				case "transaction":
					if id, ok := d["id"].(string); ok {
						if _, seen := txSeen[id]; !seen {
							txSeen[id] = now
						}
					}
				}
				mu.Unlock()
			}
		}
	}()
	time.Sleep(2 * time.Second) // the evaluator's first round

	type batch struct {
		committed time.Time
		total     int64
		firstID   string
	}
	var batches []batch
	var total int64
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	end := time.Now().Add(time.Duration(seconds) * time.Second)
	for time.Now().Before(end) {
		<-tick.C
		rows, err := g.pool.Query(t.Context(), `
			INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
				provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, amount, currency,
				destination_amount, destination_currency, payment_method_type, payment_method_value, created_at, updated_at)
			SELECT 'WB-' || gen_random_uuid(), $1, $2, 1, 1, 'Bench', 'Bench', 'GCash', 'wb-' || gen_random_uuid(), 'c', 1,
				CASE WHEN i % 3 = 0 THEN 4 ELSE 3 END, 10.00, 'PHP', 10.00, 'PHP', 1, '0917', now(), now()
			FROM generate_series(1, 50) i RETURNING id, status`, m, c)
		if err != nil {
			t.Fatal(err)
		}
		var msgs [][]byte
		first := ""
		for rows.Next() {
			var id int64
			var status int32
			if err := rows.Scan(&id, &status); err != nil {
				t.Fatal(err)
			}
			if first == "" {
				first = strconv.FormatInt(id, 10)
			}
			data, _ := proto.Marshal(&eventsv1.TransactionCreated{Transaction: &eventsv1.TransactionState{
				TransactionId: id, MerchantId: m, CollabId: c, Status: status, UpdatedAt: timestamppb.Now()}})
			msgs = append(msgs, data)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		committed := time.Now()
		for _, d := range msgs {
			if err := g.nc.Publish(bus.Subject(&eventsv1.TransactionCreated{}), d); err != nil {
				t.Fatal(err)
			}
		}
		total += int64(len(msgs))
		batches = append(batches, batch{committed, total, first})
	}
	time.Sleep(3 * time.Second)

	mu.Lock()
	defer mu.Unlock()
	var lat, bare []time.Duration
	missed := 0
	for _, b := range batches {
		i := slices.IndexFunc(values, func(a arrival) bool { return a.count >= b.total && !a.at.Before(b.committed) })
		if i < 0 {
			missed++
			continue
		}
		lat = append(lat, values[i].at.Sub(b.committed))
		if at, ok := txSeen[b.firstID]; ok {
			bare = append(bare, at.Sub(b.committed))
		}
	}
	q := func(d []time.Duration, p float64) time.Duration {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[min(len(d)-1, int(float64(len(d))*p))]
	}
	rate := float64(total) / float64(seconds)
	t.Logf("load: %d payments in %d s (%.0f/s), 20 watchlists in 10 groups", total, seconds, rate)
	t.Logf("watchlist value → SSE: p50 %v, p95 %v, max %v (%d batches, %d never seen)", q(lat, 0.5), q(lat, 0.95), q(lat, 1), len(lat), missed)
	t.Logf("ceiling, transaction event → SSE: p50 %v, p95 %v, max %v (%d batches)", q(bare, 0.5), q(bare, 0.95), q(bare, 1), len(bare))
	if q(lat, 0.95) > 2*time.Second || missed > 0 {
		t.Errorf("goal missed: p95 %v (goal ≤ 2 s), %d batches never seen", q(lat, 0.95), missed)
	}
}
