package bus_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// requestContext is the context of a request in a known trace, as the RPC
// interceptor leaves it after reading a caller's traceparent.
func requestContext(t *testing.T) (context.Context, trace.SpanContext) {
	t.Helper()
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true})
	return trace.ContextWithSpanContext(testContext(t, 20*time.Second), sc), sc
}

// TestTraceContextGoesWithTheEvent writes events in a request's trace (one
// with Enqueue, two with EnqueueBatch) and one outside any trace, relays
// them, and checks the handler of bus.Consume runs in the writer's trace,
// and the untraced event in none.
func TestTraceContextGoesWithTheEvent(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	subject := uniqueSubject(t)
	ctx, want := requestContext(t)
	tag := subject[len(bus.SubjectPrefix):] // other tests write session_started events too
	one, b1, b2, untraced := tag+"-one", tag+"-batch-1", tag+"-batch-2", tag+"-untraced"
	err := pgdb.InTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := bus.Enqueue(ctx, tx, subject, started(one)); err != nil {
			return err
		}
		_, err := bus.EnqueueBatch(ctx, tx, &eventsv1.SessionStarted{SessionId: b1}, &eventsv1.SessionStarted{SessionId: b2})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	enqueue(t, pool, subject, started(untraced))
	startRelay(t, pool, js)

	// EnqueueBatch writes on each message's own subject.
	batchSubject := bus.Subject(&eventsv1.SessionStarted{})
	type seen struct {
		id     string
		traced trace.SpanContext
	}
	got := make(chan seen, 16)
	cctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 2)
	for i, s := range []string{subject, batchSubject} {
		durable := "test-trace-" + subject[len(bus.SubjectPrefix):] + "-" + string(rune('a'+i))
		go func() {
			done <- bus.Consume(cctx, js, durable, s, func(ctx context.Context, msg jetstream.Msg) error {
				var ev eventsv1.SessionStarted
				if err := bus.Decode(msg, &ev); err != nil {
					return bus.Permanent(err)
				}
				got <- seen{ev.GetSessionId(), trace.SpanContextFromContext(ctx)}
				return nil
			}, bus.WithLogger(quietLogger()))
		}()
		t.Cleanup(func() { _ = js.DeleteConsumer(context.Background(), bus.StreamName, durable) })
	}
	defer func() {
		cancel()
		for range 2 {
			if err := <-done; err != nil {
				t.Errorf("Consume: %v", err)
			}
		}
	}()

	found := map[string]trace.SpanContext{}
	deadline := time.After(15 * time.Second)
	for len(found) < 4 {
		select {
		case s := <-got:
			if s.id == one || s.id == untraced || s.id == b1 || s.id == b2 {
				found[s.id] = s.traced
			}
		case <-deadline:
			t.Fatalf("handled %v, want one, untraced, batch-1 and batch-2", found)
		}
	}
	for _, id := range []string{one, b1, b2} {
		if sc := found[id]; sc.TraceID() != want.TraceID() {
			t.Errorf("event %s handled in trace %s, want the writer's %s", id, sc.TraceID(), want.TraceID())
		}
	}
	if sc := found[untraced]; sc.IsValid() {
		t.Errorf("the untraced event was handled in trace %s", sc.TraceID())
	}
}

// TestQueueEnqueueTracedKeepsEachRequestsTrace queues events of two
// requests, one traced and one not, in one batch, and checks each row holds
// its own request's traceparent.
func TestQueueEnqueueTracedKeepsEachRequestsTrace(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	traced, want := requestContext(t)
	ctx := testContext(t, 10*time.Second)

	b := &pgx.Batch{}
	if _, err := bus.QueueEnqueueTraced(b, []context.Context{traced}, nil); err == nil {
		t.Fatal("one context for no event accepted")
	}
	ids, err := bus.QueueEnqueueTraced(b, []context.Context{traced, ctx}, []proto.Message{started("traced"), started("plain")})
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	got := map[string]*string{}
	rows, err := pool.Query(ctx, `SELECT id::text, traceparent FROM outbox`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		var tp *string
		if err := rows.Scan(&id, &tp); err != nil {
			t.Fatal(err)
		}
		got[id] = tp
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	wantTP := "00-" + want.TraceID().String() + "-" + want.SpanID().String() + "-01"
	if tp := got[ids[0]]; tp == nil || *tp != wantTP {
		t.Errorf("traced event's traceparent = %v, want %s", tp, wantTP)
	}
	if tp, ok := got[ids[1]]; !ok || tp != nil {
		t.Errorf("untraced event's traceparent = %v (row found: %v), want NULL", tp, ok)
	}
}

// TestTraceparentRoundTrip checks a span context stored as a traceparent
// comes back as the same (remote) span context, and that nothing stored,
// or something malformed, gives none.
func TestTraceparentRoundTrip(t *testing.T) {
	t.Parallel()
	_, sc := requestContext(t)
	s := bus.FormatTraceparent(sc)
	if s != "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" {
		t.Errorf("FormatTraceparent = %q", s)
	}
	got := bus.ParseTraceparent(s)
	if !got.Equal(sc) || !got.IsRemote() {
		t.Errorf("ParseTraceparent(%q) = %v, want %v (remote)", s, got, sc)
	}
	if bus.FormatTraceparent(trace.SpanContext{}) != "" {
		t.Error("an invalid span context has a traceparent")
	}
	for _, bad := range []string{"", "00-xyz", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"} {
		if bus.ParseTraceparent(bad).IsValid() {
			t.Errorf("ParseTraceparent(%q) is valid", bad)
		}
	}
}
