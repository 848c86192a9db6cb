package callback_test

import (
	"context"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
)

// TestDispatcherTracesAttempts submits a fresh delivery made by an event of
// a known trace and checks its attempt is recorded as a span of that trace,
// a child of the event's span, with its outcome.
func TestDispatcherTracesAttempts(t *testing.T) {
	t.Parallel()
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true})

	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

	store := &fakeStore{
		claimDue:      func(context.Context, time.Time, int, time.Time) ([]callback.Delivery, error) { return nil, nil },
		recordResults: func(context.Context, []callback.Result, time.Time) error { return nil },
	}
	sender := senderFunc(func(context.Context, callback.Request) callback.Response { return callback.Response{StatusCode: 200} })
	d := callback.NewDispatcher(store, callback.NewSecrets(store, plainSealer{}, true, time.Now), sender,
		callback.DispatcherOptions{Workers: 1, PollInterval: time.Hour, Tracer: tp})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()

	done := make(chan error, 1)
	d.Submit(ctx, []callback.Job{{
		Delivery: callback.Delivery{ID: 5, WebhookID: "msg_traced", EventID: "ev-1", CallbackURLID: 1, TransactionID: 7, MerchantID: 1,
			URL: "https://example.com/cb", Body: []byte(`{}`), MaxAttempts: 3},
		Done:  func(err error) { done <- err },
		Trace: parent,
	}})
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the delivery was not recorded")
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}

	spans := recorder.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans ended, want 1", len(spans))
	}
	s := spans[0]
	if s.SpanContext().TraceID() != tid || s.Parent().SpanID() != sid || s.SpanKind() != trace.SpanKindClient {
		t.Errorf("attempt span in trace %s under %s (kind %v), want trace %s under %s", s.SpanContext().TraceID(), s.Parent().SpanID(), s.SpanKind(), tid, sid)
	}
	attrs := map[string]string{}
	for _, kv := range s.Attributes() {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	if attrs["paygate.callback.outcome"] != "delivered" || attrs["paygate.callback.delivery_id"] != "5" || attrs["http.response.status_code"] != "200" {
		t.Errorf("attempt span attributes %v", attrs)
	}
}
