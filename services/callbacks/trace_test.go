package main

import (
	"context"
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
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
)

// TestDeliveryContinuesTheEventsTrace publishes a finalized event carrying
// a traceparent, as the gateway's relay does, and checks the delivery's
// attempt is a span of that trace, under the consumer span of the event.
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
	svc.createURL(t, user(t, authz.RoleAdmin), map[string]any{"collabId": collab, "callbackUrl": rec.URL})

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
	waitFor(t, 15*time.Second, "the callback", func() bool { return len(rec.of(x.id)) == 1 })

	var consume, attempt sdktrace.ReadOnlySpan
	waitFor(t, 10*time.Second, "the event's consumer span and the attempt's span", func() bool {
		for _, s := range recorder.Ended() {
			if s.SpanContext().TraceID().String() != traceID {
				continue
			}
			switch {
			case s.SpanKind() == trace.SpanKindConsumer:
				consume = s
			case s.SpanKind() == trace.SpanKindClient && s.Name() == "callback delivery attempt":
				attempt = s
			}
		}
		return consume != nil && attempt != nil
	})
	if consume.Parent().SpanID().String() != parentID {
		t.Errorf("consumer span's parent %s, want the event's writer %s", consume.Parent().SpanID(), parentID)
	}
	if attempt.Parent().SpanID() != consume.SpanContext().SpanID() {
		t.Errorf("attempt span's parent %s, want the consumer span %s", attempt.Parent().SpanID(), consume.SpanContext().SpanID())
	}
}
