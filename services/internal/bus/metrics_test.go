package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// TestRelayMetricsCountPublished checks the relay counts what it publishes
// and reports an empty outbox once it is done.
func TestRelayMetricsCountPublished(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	schema := currentSchema(t, pool)
	js := connect(t)
	subject := uniqueSubject(t)
	enqueue(t, pool, subject, started("m-1"), started("m-2"), started("m-3"))
	startRelay(t, pool, js)

	waitFor(t, 10*time.Second, "3 events counted as published and an empty outbox", func() bool {
		return metrics.Value("paygate_outbox_published_total", "schema", schema) == 3 &&
			metrics.Value("paygate_outbox_pending_events", "schema", schema) == 0
	})
	if lag := metrics.Value("paygate_outbox_lag_seconds", "schema", schema); lag != 0 {
		t.Errorf("outbox lag %v s with nothing left to publish, want 0", lag)
	}
	if f := metrics.Value("paygate_outbox_publish_failures_total", "schema", schema); f != 0 {
		t.Errorf("%v publish failures, want 0", f)
	}
}

// TestRelayMetricsShowAStuckOutbox checks that an event the stream refuses
// (its subject is outside the stream) shows as a failure, a pending event
// and a lag of its age.
func TestRelayMetricsShowAStuckOutbox(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	schema := currentSchema(t, pool)
	js := connect(t)
	enqueue(t, pool, "paygate_test_unbound."+uniqueSubject(t)[len(bus.SubjectPrefix):], started("stuck"))
	if _, err := pool.Exec(testContext(t, 5*time.Second), `UPDATE outbox SET created_at = now() - interval '90 seconds'`); err != nil {
		t.Fatal(err)
	}
	startRelay(t, pool, js)

	waitFor(t, 20*time.Second, "a failure, one pending event and its age", func() bool {
		return metrics.Value("paygate_outbox_publish_failures_total", "schema", schema) >= 1 &&
			metrics.Value("paygate_outbox_pending_events", "schema", schema) == 1 &&
			metrics.Value("paygate_outbox_lag_seconds", "schema", schema) >= 90
	})
	if p := metrics.Value("paygate_outbox_published_total", "schema", schema); p != 0 {
		t.Errorf("%v events counted as published, want 0", p)
	}
}

// TestSampleLag checks the consumer gauges follow the consumer's pending and
// unacknowledged messages.
func TestSampleLag(t *testing.T) {
	t.Parallel()
	js := connect(t)
	subject := uniqueSubject(t)
	ctx := testContext(t, 30*time.Second)
	for range 5 {
		if _, err := js.Publish(ctx, subject, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	durable := "test-lag-" + subject[len(bus.SubjectPrefix):]
	cons, err := js.CreateOrUpdateConsumer(ctx, bus.StreamName, jetstream.ConsumerConfig{
		Durable: durable, FilterSubject: subject, AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = js.DeleteConsumer(context.Background(), bus.StreamName, durable) })
	stop := bus.StartLagSampler(ctx, cons, durable, 20*time.Millisecond)
	defer stop()

	waitFor(t, 10*time.Second, "5 pending messages", func() bool {
		return metrics.Value("paygate_consumer_pending_messages", "consumer", durable) == 5
	})
	batch, err := cons.Fetch(2, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range batch.Messages() {
		n++
	}
	if n != 2 {
		t.Fatalf("fetched %d messages, want 2", n)
	}
	waitFor(t, 10*time.Second, "3 pending and 2 unacknowledged messages", func() bool {
		return metrics.Value("paygate_consumer_pending_messages", "consumer", durable) == 3 &&
			metrics.Value("paygate_consumer_ack_pending_messages", "consumer", durable) == 2
	})
}

func currentSchema(t *testing.T, pool *pgxpool.Pool) string {
	t.Helper()
	var schema string
	if err := pool.QueryRow(testContext(t, 5*time.Second), `SELECT current_schema()`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	return schema
}
