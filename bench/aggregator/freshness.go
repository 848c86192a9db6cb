package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/paygate/paygate/bench/internal/harness"
	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

// collab is the collab (and its merchant and provider) the synthetic
// transactions belong to.
type collab struct {
	id, merchantID, providerID int32
	merchantName, providerName string
}

// firstCollab reads the gateway's first collab.
func firstCollab(ctx context.Context, gw *pgx.Conn) collab {
	var c collab
	if err := gw.QueryRow(ctx, `SELECT c.id, c.merchant_id, c.provider_id, m.name, p.name FROM collabs c
		JOIN merchants m ON m.id = c.merchant_id JOIN providers p ON p.id = c.provider_id ORDER BY c.id LIMIT 1`).
		Scan(&c.id, &c.merchantID, &c.providerID, &c.merchantName, &c.providerName); err != nil {
		fatalf("collab: %v", err)
	}
	return c
}

// events are the TransactionCreated (Pending) and TransactionFinalized
// (Success) events of a USD 10.00 deposit id of c made at now, each with a
// Nats-Msg-Id of its own in run.
func (c collab) events(run, id int64, now time.Time) (created, finalized *nats.Msg) {
	st := &eventsv1.TransactionState{TransactionId: id, ReferenceId: fmt.Sprintf("aggbench-%d", id),
		MerchantId: c.merchantID, CollabId: c.id, ProviderId: c.providerID, Nonce: strconv.FormatInt(id, 10),
		TransactionType: 1, Amount: "10.00", Currency: "USD", Status: 3, CreatedAt: timestamppb.New(now),
		UpdatedAt: timestamppb.New(now), Version: 1, MerchantName: c.merchantName, ProviderName: c.providerName}
	fin := proto.Clone(st).(*eventsv1.TransactionState)
	fin.Status, fin.Version, fin.StatusMessage = 4, 2, "Success"
	msg := func(subject string, v int, m proto.Message) *nats.Msg {
		out := nats.NewMsg(subject)
		out.Data, _ = proto.Marshal(m)
		out.Header.Set(nats.MsgIdHdr, fmt.Sprintf("aggbench-%d-%d-%d", run, id, v))
		return out
	}
	return msg("paygate.events.transaction_created", 1, &eventsv1.TransactionCreated{Transaction: st}),
		msg("paygate.events.transaction_finalized", 2, &eventsv1.TransactionFinalized{Transaction: fin, PreviousStatus: 3, Source: "aggbench"})
}

// jetStream connects to the bench's NATS server.
func jetStream(nurl string) (*nats.Conn, jetstream.JetStream) {
	nc, err := nats.Connect(nurl)
	if err != nil {
		fatalf("%v", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		fatalf("%v", err)
	}
	return nc, js
}

// freshness publishes transactions at -freshness-rate for -freshness-duration
// (each a TransactionCreated, then its TransactionFinalized, as a payment
// that turns final at once) and times, for every one, how long after its
// final status was published the statistics count it:
//   - per transaction, from the aggregator's own row (tx_state, written in
//     the same database transaction as the rollups that the statistics
//     read): a transaction held back anywhere shows as its own lag;
//   - as the console sees it, from GET /api/v1/statistics: the k-th
//     transaction published is taken as counted once today's successful
//     count has grown by k (which hides which one is late, not how late).
//
// Both are polled every 50 ms, so a lag is at most ~50 ms plus a poll's
// time above the truth.
func freshness(ctx context.Context, gw *pgx.Conn, nurl, token, aggBase string) {
	c := firstCollab(ctx, gw)
	nc, js := jetStream(nurl)
	defer nc.Close()
	agg := connect(ctx, *aggSchema)
	defer agg.Close(ctx)

	n := int(*freshRate * freshFor.Seconds())
	run := time.Now().UnixNano()
	// Ids far above any real one and the consumer phase's: 2·10^15 + …
	base := int64(2_000_000_000_000_000) + (run/1e9%1_000_000)*1_000_000
	day := time.Now().UTC().Truncate(24 * time.Hour)
	q := urlValues(day)
	before, _ := get(aggBase, token, q)

	fmt.Printf("\nfreshness: %d transactions at %.0f/s for %s (created + finalized each), ids from %d; load average %s\n",
		n, *freshRate, *freshFor, base, harness.LoadAvg())
	sent := make([]time.Time, n) // when each one's final status was published
	var published atomic.Int64   // how many of sent are set
	var pubErr atomic.Value
	var wg sync.WaitGroup
	wg.Add(2)
	acks := make(chan jetstream.PubAckFuture, 8192)
	go func() { // the stream's acknowledgements, in order
		defer wg.Done()
		for f := range acks {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				pubErr.CompareAndSwap(nil, err)
			}
		}
	}()
	t0 := time.Now()
	go func() { // an open loop: each transaction at its planned time
		defer wg.Done()
		defer close(acks)
		for i := range n {
			if d := time.Until(t0.Add(time.Duration(float64(i) / *freshRate * float64(time.Second)))); d > time.Millisecond {
				time.Sleep(d)
			}
			created, finalized := c.events(run, base+int64(i), time.Now().UTC())
			publish := func(m *nats.Msg) bool {
				f, err := js.PublishMsgAsync(m)
				if err != nil {
					pubErr.CompareAndSwap(nil, err)
					return false
				}
				acks <- f
				return true
			}
			if !publish(created) {
				return
			}
			sent[i] = time.Now()
			if !publish(finalized) {
				return
			}
			published.Store(int64(i + 1))
		}
	}()

	seen := make([]time.Time, n) // when the aggregator's row showed it final
	var counts []countAt         // today's successful count by time
	low, done := 0, 0
	deadline := t0.Add(*freshFor + 2*time.Minute)
	for done < n && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		if err, _ := pubErr.Load().(error); err != nil {
			fatalf("freshness: publish: %v", err)
		}
		p := int(published.Load())
		var ids []int64
		for i := low; i < p; i++ {
			if seen[i].IsZero() {
				ids = append(ids, base+int64(i))
			}
		}
		if len(ids) > 0 {
			rows, err := agg.Query(ctx, `SELECT id FROM tx_state WHERE id = ANY($1) AND status = 4`, ids)
			if err != nil {
				fatalf("freshness: read tx_state: %v", err)
			}
			final, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				fatalf("freshness: read tx_state: %v", err)
			}
			now := time.Now()
			for _, id := range final {
				seen[id-base] = now
			}
			done += len(final)
			for low < p && !seen[low].IsZero() {
				low++
			}
		}
		st, _ := get(aggBase, token, q)
		counts = append(counts, countAt{time.Now(), st.GetSuccessful() - before.GetSuccessful()})
	}
	wg.Wait()
	took := time.Since(t0)

	var own, console []time.Duration
	late := 0
	for i := range n {
		if seen[i].IsZero() {
			late++
			continue
		}
		own = append(own, seen[i].Sub(sent[i]))
	}
	// The console's view: the k-th published (sent is in publishing order)
	// is counted at the first poll whose count reached k.
	j := 0
	for k, at := range sent {
		for j < len(counts) && counts[j].n < int64(k+1) {
			j++
		}
		if j == len(counts) {
			break
		}
		console = append(console, counts[j].at.Sub(at))
	}
	verdict := func(p pct, all bool) string {
		if all && p.p99 <= 2000 {
			return "met"
		}
		return "MISSED"
	}
	for i, shown := 0, 0; i < n && shown < 10; i++ {
		switch lag := seen[i].Sub(sent[i]); {
		case seen[i].IsZero():
			fmt.Printf("  late: transaction %d (published %.3f s in): never seen final\n", i, sent[i].Sub(t0).Seconds())
			shown++
		case lag > 2*time.Second:
			fmt.Printf("  late: transaction %d (published %.3f s in): seen after %s\n", i, sent[i].Sub(t0).Seconds(), lag.Round(time.Millisecond))
			shown++
		}
	}
	// What the server says of the aggregator's consumers: a message it
	// delivered but was not acked within AckWait counts as redelivered.
	if stream, err := js.Stream(ctx, "PAYGATE_EVENTS"); err == nil {
		for info := range stream.ListConsumers(ctx).Info() {
			if strings.Contains(info.Name, "transaction") {
				fmt.Printf("  consumer %s: delivered %d, redelivered %d, ack pending %d, pending %d\n", info.Name,
					info.Delivered.Consumer, info.NumRedelivered, info.NumAckPending, info.NumPending)
			}
		}
	}
	a := percentiles(own)
	fmt.Printf("freshness, per transaction (the aggregator's row): %d of %d final in %s; lag p50 %.0f / p95 %.0f / p99 %.0f / max %.0f ms; over 2 s: %d; target p99 ≤ 2 s: %s\n",
		len(own), n, took.Round(time.Millisecond), a.p50, a.p95, a.p99, a.max, over(own, 2*time.Second)+late, verdict(a, late == 0))
	if len(console) > 0 {
		b := percentiles(console)
		fmt.Printf("freshness, as GET /api/v1/statistics counts them: %d of %d; lag p50 %.0f / p95 %.0f / p99 %.0f / max %.0f ms; target p99 ≤ 2 s: %s; load average %s\n",
			len(console), n, b.p50, b.p95, b.p99, b.max, verdict(b, len(console) == n), harness.LoadAvg())
	}
}

type countAt struct {
	at time.Time
	n  int64
}

func over(lat []time.Duration, limit time.Duration) int {
	n := 0
	for _, d := range lat {
		if d > limit {
			n++
		}
	}
	return n
}
