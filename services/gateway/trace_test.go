package main

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/bus"
)

// TestPolledPaymentIsTraced sends a payment the provider leaves pending and
// no webhook settles, so the polling job finalizes it, and checks that its
// TransactionFinalized event carries, in the outbox and in the message the
// relay publishes, the traceparent of the job's "poll transaction" span
// for that transaction: the callbacks service continues that trace into
// its consumer and delivery spans (services/callbacks/trace_test.go; the
// whole chain across the processes: bench/replicas, checkTraces).
// Not parallel: it installs the process's tracer provider (a recorder),
// which the parallel tests then share harmlessly.
func TestPolledPaymentIsTraced(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	e := newPayEnv(t)
	sub, err := e.nc.SubscribeSync(bus.Subject(&eventsv1.TransactionFinalized{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })

	out := e.initialize(t, http.StatusOK, e.payload("n-traced-poll", "10", 1, "GCASH",
		"sandbox:outcome=pending-success", "sandbox:pending=300ms", "sandbox:webhook=off"))
	if out.TransactionStatus != 3 {
		t.Fatalf("answer %+v, want pending", out)
	}
	e.waitStatus(t, out.ID, 4)
	id, _ := strconv.ParseInt(out.ID, 10, 64)

	// The event as the relay published it.
	var published string
	deadline := time.Now().Add(15 * time.Second)
	for published == "" {
		msg, err := sub.NextMsg(time.Until(deadline))
		if err != nil {
			t.Fatalf("the finalized event of transaction %d was not published: %v", id, err)
		}
		var ev eventsv1.TransactionFinalized
		if proto.Unmarshal(msg.Data, &ev) != nil || ev.GetTransaction().GetTransactionId() != id {
			continue
		}
		if ev.GetSource() != "Polling" {
			t.Fatalf("transaction %d finalized by %q, want Polling", id, ev.GetSource())
		}
		published = msg.Header.Get(bus.HeaderTraceparent)
		if published == "" {
			t.Fatalf("the finalized event of transaction %d was published without a traceparent", id)
		}
	}
	if n := e.queryInt(t, `SELECT count(*) FROM outbox WHERE subject = $1 AND traceparent = $2`,
		bus.Subject(&eventsv1.TransactionFinalized{}), published); n != 1 {
		t.Errorf("%d finalized events in the outbox with traceparent %s, want 1", n, published)
	}

	// The traceparent names the span of the poll of this transaction (it
	// ends just after the event is written).
	parts := strings.Split(published, "-")
	if len(parts) != 4 {
		t.Fatalf("traceparent %q", published)
	}
	var poll sdktrace.ReadOnlySpan
	for end := time.Now().Add(5 * time.Second); poll == nil && time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		for _, s := range recorder.Ended() {
			if s.Name() != "poll transaction" || s.SpanContext().TraceID().String() != parts[1] {
				continue
			}
			for _, kv := range s.Attributes() {
				if kv.Key == "paygate.transaction_id" && kv.Value.AsInt64() == id {
					poll = s
				}
			}
		}
	}
	if poll == nil {
		t.Fatalf("no poll span of transaction %d in trace %s", id, parts[1])
	}
	if poll.SpanContext().SpanID().String() != parts[2] {
		t.Errorf("the event's parent span is %s, want the poll span %s", parts[2], poll.SpanContext().SpanID())
	}
	if poll.Parent().IsValid() {
		t.Errorf("the poll span has parent %s, want a root span of its own trace", poll.Parent().SpanID())
	}
}
