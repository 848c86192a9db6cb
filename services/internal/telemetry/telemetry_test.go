package telemetry

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

func spanTraceID(ctx context.Context) string {
	return trace.SpanContextFromContext(ctx).TraceID().String()
}

func TestSetupRejectsBadEndpoints(t *testing.T) {
	t.Parallel()
	for _, ep := range []string{"collector:4318", "ftp://collector", "http://"} {
		if _, err := Setup("test", ep); err == nil {
			t.Errorf("Setup(%q) accepted", ep)
		}
	}
}

func TestNoEndpointIsANoOp(t *testing.T) {
	t.Parallel()
	tr, err := Setup("test", "")
	if err != nil {
		t.Fatal(err)
	}
	called := false
	_, err = tr.UnaryInterceptor()(context.Background(), nil, &grpc.UnaryServerInfo{FullMethod: "/t.S/M"},
		func(context.Context, any) (any, error) { called = true; return nil, nil })
	if err != nil || !called {
		t.Fatalf("handler called %v, err %v", called, err)
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestSpansContinueTheCallersTrace exports to a fake OTLP/HTTP collector and
// checks that the span of an RPC carries the trace id of the caller's
// traceparent.
func TestSpansContinueTheCallersTrace(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies [][]byte
	)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		if r.URL.Path == "/v1/traces" {
			bodies = append(bodies, b)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	}))
	defer collector.Close()

	tr, err := Setup("test", collector.URL)
	if err != nil {
		t.Fatal(err)
	}
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	ctx := metadata.NewIncomingContext(context.Background(),
		metadata.Pairs("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01"))
	var seen string
	_, err = tr.UnaryInterceptor()(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/paygate.test.v1.S/Call"},
		func(ctx context.Context, _ any) (any, error) {
			seen = spanTraceID(ctx)
			return nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if seen != traceID {
		t.Fatalf("handler's span has trace id %q, want the caller's %q", seen, traceID)
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Shutdown(sctx); err != nil {
		t.Fatal(err)
	}
	raw, _ := hex.DecodeString(traceID)
	mu.Lock()
	defer mu.Unlock()
	for _, b := range bodies {
		if bytes.Contains(b, raw) && bytes.Contains(b, []byte("/paygate.test.v1.S/Call")) {
			return
		}
	}
	t.Fatalf("the collector received %d exports, none with the span", len(bodies))
}
