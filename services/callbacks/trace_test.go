package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/bus"
)

// TestDeliveryContinuesTheEventsTrace publishes a finalized event carrying
// a traceparent, as the gateway's relay does, to a receiver that fails the
// first attempt, and checks that both attempts (the fresh one and the retry
// the claim job makes later from the stored delivery) are spans of that
// trace, under the consumer span of the event, and that each request
// reached the receiver with the traceparent of its own client span there.
// Not parallel: it installs the process's tracer provider (a recorder),
// which the parallel tests then share harmlessly.
func TestDeliveryContinuesTheEventsTrace(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	svc := startService(t)
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	rec.status.Store(http.StatusInternalServerError)
	svc.createURL(t, user(t, access.RoleAdmin), map[string]any{"collabId": collab, "callbackUrl": rec.URL})

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	x := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4}
	raw, err := proto.Marshal(&eventsv1.TransactionFinalized{Transaction: x.state(), PreviousStatus: x.prev, Source: "Provider"})
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(bus.Subject(&eventsv1.TransactionFinalized{}))
	m.Data = raw
	m.Header.Set(jetstream.MsgIDHeader, "cbtest-"+randomHex(8))
	m.Header.Set(bus.HeaderTraceparent, "00-"+traceID+"-"+parentID+"-01")
	js, err := jetstream.New(ev.nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 15*time.Second, "the first attempt", func() bool { return len(rec.of(x.id)) == 1 })
	rec.status.Store(http.StatusOK)
	waitFor(t, 15*time.Second, "the retry", func() bool { return len(rec.of(x.id)) == 2 })

	var consume sdktrace.ReadOnlySpan
	attempts := map[int]sdktrace.ReadOnlySpan{}    // by attempt number
	requests := map[string]sdktrace.ReadOnlySpan{} // by span id
	waitFor(t, 10*time.Second, "the event's consumer span, both attempts' spans and their requests' spans", func() bool {
		for _, s := range recorder.Ended() {
			if s.SpanContext().TraceID().String() != traceID {
				continue
			}
			switch {
			case s.SpanKind() == trace.SpanKindConsumer:
				consume = s
			case s.SpanKind() == trace.SpanKindClient && s.Name() == "callback delivery attempt":
				for _, kv := range s.Attributes() {
					if kv.Key == "paygate.callback.attempt" {
						attempts[int(kv.Value.AsInt64())] = s
					}
				}
			case s.SpanKind() == trace.SpanKindClient && s.Name() == "POST":
				requests[s.SpanContext().SpanID().String()] = s
			}
		}
		return consume != nil && len(attempts) == 2 && len(requests) == 2
	})
	if consume.Parent().SpanID().String() != parentID {
		t.Errorf("consumer span's parent %s, want the event's writer %s", consume.Parent().SpanID(), parentID)
	}
	for n := 1; n <= 2; n++ {
		a := attempts[n]
		if a == nil {
			t.Fatalf("no span of attempt %d in the trace (attempts %v)", n, attempts)
		}
		if a.Parent().SpanID() != consume.SpanContext().SpanID() {
			t.Errorf("attempt %d span's parent %s, want the consumer span %s", n, a.Parent().SpanID(), consume.SpanContext().SpanID())
		}
	}
	// Each request the receiver got carries the traceparent of a request
	// span of the trace, itself under an attempt's span.
	for i, r := range rec.of(x.id) {
		tp := r.header.Get("traceparent")
		parts := strings.Split(tp, "-")
		if len(parts) != 4 || parts[1] != traceID {
			t.Errorf("request %d reached the receiver with traceparent %q, want one of trace %s", i+1, tp, traceID)
			continue
		}
		req := requests[parts[2]]
		if req == nil {
			t.Errorf("request %d's traceparent %q names no request span", i+1, tp)
			continue
		}
		if req.Parent().SpanID() != attempts[i+1].SpanContext().SpanID() {
			t.Errorf("request %d's span is under %s, want attempt %d's %s", i+1, req.Parent().SpanID(), i+1, attempts[i+1].SpanContext().SpanID())
		}
	}
}
