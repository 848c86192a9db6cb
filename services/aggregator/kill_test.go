package main

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"

	aggnats "github.com/paygate/paygate/services/aggregator/internal/nats"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// TestKilledMidStream kills the aggregator with SIGKILL while it applies a
// stream of transaction events, starts it again on the same schema and
// consumers, and checks that the statistics equal the ground truth of the
// events sent: nothing lost (unacknowledged batches come again) and nothing
// counted twice (each batch commits with its state versions, so a batch
// applied before the kill and delivered again changes nothing).
func TestKilledMidStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the aggregator binary")
	}
	bin, err := servicetest.Build("github.com/paygate/paygate/services/aggregator")
	if err != nil {
		t.Fatal(err)
	}
	schema := "aggkill_" + randomHex(6)
	env := serviceEnv(schema)
	env["PAYGATE_AGGREGATOR_BATCH_SIZE"] = "100"
	ctx := context.Background()
	nc, js, err := bus.Connect(ctx, natsURL)
	if err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(ctx, pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, n := range aggnats.Consumers(schema) {
			_ = js.DeleteConsumer(ctx, bus.StreamName, n)
		}
		_, _ = db.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		db.Close(ctx)
		nc.Close()
	})

	first, err := servicetest.Start(bin, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = first.Stop() })
	waitConsumers(t, js, schema)
	s := &service{Service: first, schema: schema, js: js, db: db}

	// 3,000 transactions of one hour, each created then final (70 %
	// successful), of a merchant and ids no other test uses: the stream is
	// shared, and the consumers see other tests' events too.
	const n = 3000
	day := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rand.IntN(300))
	base := int64(9_000_000_000) + rand.Int64N(1_000_000_000)
	merchant := 100_000 + rand.Int32N(1_000_000)
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[int64]int64{}
	var wantSuccess int64
	wantCashIn := new(big.Rat)
	txs := make([]tx, n)
	for i := range txs {
		x := tx{id: base + int64(i), version: 1, created: day.Add(time.Duration(rng.IntN(3600)) * time.Second),
			merchant: merchant, provider: 1, status: 3, typ: 1, currency: "USD", amount: fmt.Sprintf("%d.%02d", 1+rng.IntN(900), rng.IntN(100))}
		txs[i] = x
		want[x.id] = 2
	}
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i, x := range txs {
			s.send(t, x)
			x.version, x.status = 2, -2
			if i%10 < 7 {
				x.status = 4
			}
			s.send(t, x)
		}
	}()
	for i := range txs {
		if i%10 < 7 {
			wantSuccess++
			a, _ := new(big.Rat).SetString(txs[i].amount)
			wantCashIn.Add(wantCashIn, a)
		}
	}

	// Kill it once it has applied part of the stream.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var applied int
		if err := db.QueryRow(ctx, "SELECT count(*) FROM "+schema+".tx_state").Scan(&applied); err == nil && applied >= n/5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the aggregator applied too little before the kill")
		}
		time.Sleep(20 * time.Millisecond)
	}
	first.Kill()
	<-sent

	second, err := servicetest.Start(bin, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Stop() })
	s.Service = second
	s.waitApplied(t, want)

	var total, success int64
	if err := db.QueryRow(ctx, "SELECT coalesce(sum(n), 0), coalesce(sum(n) FILTER (WHERE status = 4), 0) FROM "+schema+".stats_hour WHERE merchant_id = $1", merchant).Scan(&total, &success); err != nil {
		t.Fatal(err)
	}
	if total != n || success != wantSuccess {
		t.Fatalf("hour rollup after the kill: %d transactions, %d successful; want %d, %d", total, success, n, wantSuccess)
	}
	code, body := get(t, s, admin(t), http.MethodGet, statsPath(day, day.Add(24*time.Hour), fmt.Sprintf("&merchantId=%d", merchant)), "")
	if code != http.StatusOK {
		t.Fatalf("statistics: %d %v", code, body)
	}
	if num(body["total"]) != n || num(body["successful"]) != wantSuccess || num(body["pspError"]) != n-wantSuccess {
		t.Errorf("statistics after the kill: total %v successful %v pspError %v; want %d, %d, %d",
			body["total"], body["successful"], body["pspError"], n, wantSuccess, n-wantSuccess)
	}
	cashIn, _ := body["cashInData"].(map[string]any)
	ratEq(t, "cash in", fmt.Sprint(cashIn["amount"]), wantCashIn)
}

// waitConsumers waits until the aggregator on schema has made its durable
// consumers (it starts them with new events only).
func waitConsumers(t *testing.T, js jetstream.JetStream, schema string) {
	t.Helper()
	for _, name := range aggnats.Consumers(schema) {
		deadline := time.Now().Add(20 * time.Second)
		for {
			if _, err := js.Consumer(context.Background(), bus.StreamName, name); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("consumer %s not made", name)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
