package callback_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
)

// TestDispatcherTracesAttempts sends a delivery made by an event of a known
// trace, once fresh (submitted) and once claimed from the store (a retry),
// and checks each attempt is recorded as a span of that trace, a child of
// the event's span, with its outcome, and that the sender is called within
// the attempt's span (the receivers' client starts its request span there).
func TestDispatcherTracesAttempts(t *testing.T) {
	t.Parallel()
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true})
	delivery := callback.Delivery{WebhookID: "msg_traced", EventID: "ev-1", CallbackURLID: 1, TransactionID: 7, MerchantID: 1,
		URL: "https://example.com/cb", Body: []byte(`{}`), MaxAttempts: 3, Trace: parent}

	for _, claimed := range []bool{false, true} {
		name := "fresh"
		if claimed {
			name = "claimed"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			recorder := tracetest.NewSpanRecorder()
			tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
			t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })

			dl := delivery
			var handedOut atomic.Bool
			recorded := make(chan []callback.Result, 1)
			store := &fakeStore{
				claimDue: func(context.Context, time.Time, int, time.Time) ([]callback.Delivery, error) {
					if !claimed || handedOut.Swap(true) {
						return nil, nil
					}
					c := dl
					c.ID, c.AttemptsMade, c.Lease = 5, 1, "lease-1"
					return []callback.Delivery{c}, nil
				},
				recordResults: func(_ context.Context, rs []callback.Result, _ time.Time) error {
					recorded <- rs
					return nil
				},
			}
			var sentIn atomic.Value
			sender := senderFunc(func(ctx context.Context, _ callback.Request) callback.Response {
				sentIn.Store(trace.SpanContextFromContext(ctx))
				return callback.Response{StatusCode: 200}
			})
			d := callback.NewDispatcher(store, callback.NewSecrets(store, plainSealer{}, true, time.Now), sender,
				callback.DispatcherOptions{Workers: 1, PollInterval: 10 * time.Millisecond, Tracer: tp})
			ctx, cancel := context.WithCancel(context.Background())
			ran := make(chan error, 1)
			go func() { ran <- d.Run(ctx) }()
			if !claimed {
				d.Submit(ctx, []callback.Job{{Delivery: dl, Done: func(error) {}}})
			}
			select {
			case <-recorded:
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
			if got, _ := sentIn.Load().(trace.SpanContext); got.SpanID() != s.SpanContext().SpanID() {
				t.Errorf("sender called in span %s, want the attempt's %s", got.SpanID(), s.SpanContext().SpanID())
			}
			attrs := map[string]string{}
			for _, kv := range s.Attributes() {
				attrs[string(kv.Key)] = kv.Value.Emit()
			}
			wantAttempt := "1"
			if claimed {
				wantAttempt = "2"
			}
			if attrs["paygate.callback.outcome"] != "delivered" || attrs["paygate.callback.attempt"] != wantAttempt || attrs["http.response.status_code"] != "200" {
				t.Errorf("attempt span attributes %v", attrs)
			}
		})
	}
}
