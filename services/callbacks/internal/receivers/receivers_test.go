package receivers_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/callbacks/internal/receivers"
	"github.com/paygate/paygate/services/internal/netguard"
	"github.com/paygate/paygate/services/internal/stdwebhooks"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func newSender(t *testing.T, p netguard.Policy, timeout time.Duration, limit int64) *receivers.Sender {
	t.Helper()
	c := p.Client(timeout)
	t.Cleanup(c.CloseIdleConnections)
	return receivers.NewSender(c, limit)
}

func TestSend(t *testing.T) {
	t.Parallel()
	var got atomic.Pointer[http.Request]
	var gotBody atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(r)
		gotBody.Store(string(b))
		switch r.URL.Path {
		case "/ok":
			w.WriteHeader(http.StatusNoContent)
		case "/big-ok":
			_, _ = w.Write([]byte(strings.Repeat("x", 100)))
		case "/fail":
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("  maintenance\n\t window " + strings.Repeat("y", 300)))
		case "/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(2 * time.Second):
			}
		}
	}))
	t.Cleanup(srv.Close)
	s := newSender(t, netguard.Policy{AllowPrivate: true}, 300*time.Millisecond, 64)
	ctx := context.Background()

	resp := s.Send(ctx, callback.Request{URL: srv.URL + "/ok", Body: []byte(`{"a":1}`), Headers: map[string]string{"webhook-id": "msg_1"}})
	if resp.StatusCode != 204 || resp.Err != nil {
		t.Fatalf("ok: %+v", resp)
	}
	r := got.Load()
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" || r.Header.Get("webhook-id") != "msg_1" ||
		r.Header.Get("User-Agent") != receivers.UserAgent || gotBody.Load() != `{"a":1}` {
		t.Fatalf("request: %s %v %q", r.Method, r.Header, gotBody.Load())
	}

	if resp := s.Send(ctx, callback.Request{URL: srv.URL + "/big-ok"}); resp.StatusCode != 200 || resp.Err == nil || resp.Reason != "The receiver's answer is larger than 64 bytes." {
		t.Fatalf("a body over the limit: %+v", resp)
	}
	// A private receiver's answer is not quoted: it could be an internal
	// service's, read by a merchant user.
	resp = s.Send(ctx, callback.Request{URL: srv.URL + "/fail"})
	if resp.StatusCode != 503 || resp.Snippet != "" {
		t.Fatalf("failure at a private receiver: %+v", resp)
	}
	// A public receiver's answer is quoted, capped.
	s.TreatAsPublic(func(a netip.Addr) bool { return a.IsLoopback() })
	resp = s.Send(ctx, callback.Request{URL: srv.URL + "/fail"})
	if resp.StatusCode != 503 || !strings.HasPrefix(resp.Snippet, "maintenance window yyy") || len(resp.Snippet) > 200 {
		t.Fatalf("failure: %+v", resp)
	}
	if resp := s.Send(ctx, callback.Request{URL: srv.URL + "/slow"}); resp.StatusCode != 0 || resp.Err == nil || resp.Reason != "The receiver did not answer within 300ms." {
		t.Fatalf("slow receiver: %+v", resp)
	}

	// A strict policy refuses the loopback receiver at connect time, even
	// though the URL was never checked.
	strict := newSender(t, netguard.Policy{}, time.Second, 0)
	before := got.Load()
	resp = strict.Send(ctx, callback.Request{URL: srv.URL + "/ok"})
	if resp.StatusCode != 0 || resp.Err == nil || !strings.Contains(resp.Reason, "private or reserved") {
		t.Fatalf("strict sender: %+v", resp)
	}
	if got.Load() != before {
		t.Fatal("the strict sender reached the loopback receiver")
	}
}

// TestSendReasonsAreOurs checks that network failures are stored as
// sentences of ours, never the network error's text (which can name
// internal addresses, the resolver's among them); that text stays in Err,
// for the log.
func TestSendReasonsAreOurs(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close() // nothing listens there now: connection refused
	hangup := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	t.Cleanup(hangup.Close)
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	t.Cleanup(secure.Close)
	s := newSender(t, netguard.Policy{AllowPrivate: true}, 5*time.Second, 0)
	for _, tt := range []struct{ url, want string }{
		{"http://" + addr + "/", "The receiver refused the connection: nothing accepts connections on the URL's port."},
		{hangup.URL + "/", "The receiver closed the connection before answering."},
		{"http://host.invalid/", `The URL's host name "host.invalid" was not found in DNS.`},
		{secure.URL + "/", "The TLS handshake with the receiver failed: its certificate is not trusted or not valid for the URL's host."},
		{"http://bad\x7fhost/", "The URL cannot be called: it is not a valid http or https URL."},
	} {
		resp := s.Send(context.Background(), callback.Request{URL: tt.url})
		if resp.Err == nil || resp.Reason != tt.want {
			t.Errorf("%s: reason %q (err %v), want %q", tt.url, resp.Reason, resp.Err, tt.want)
		}
		for _, leak := range []string{"127.0.0.1", "dial", "lookup", "parse", "x509"} {
			if strings.Contains(resp.Reason, leak) {
				t.Errorf("%s: the reason holds the client's text %q: %v", tt.url, leak, resp.Reason)
			}
		}
	}
}

// TestSendTraces sends a signed delivery within a span and checks the
// request is a client span of that trace whose context reaches the receiver
// in the traceparent header, and that the header leaves the Standard
// Webhooks signature valid (it covers the id, timestamp and body only).
func TestSendTraces(t *testing.T) {
	t.Parallel()
	type seen struct {
		traceparent string
		verified    bool
	}
	key := []byte("trace-test-signing-key")
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get(stdwebhooks.HeaderTimestamp), 10, 64)
		got <- seen{traceparent: r.Header.Get("traceparent"),
			verified: stdwebhooks.Verify(key, r.Header.Get(stdwebhooks.HeaderID), ts, body, r.Header.Get(stdwebhooks.HeaderSignature))}
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	s := newSender(t, netguard.Policy{AllowPrivate: true}, time.Second, 0)
	s.TraceWith(tp)

	ctx, attempt := tp.Tracer("test").Start(context.Background(), "callback delivery attempt")
	body := []byte(`{"type":"transaction.finalized"}`)
	ts := time.Now().Unix()
	resp := s.Send(ctx, callback.Request{URL: srv.URL + "/cb", Body: body, Headers: map[string]string{
		stdwebhooks.HeaderID: "msg_traced", stdwebhooks.HeaderTimestamp: strconv.FormatInt(ts, 10),
		stdwebhooks.HeaderSignature: stdwebhooks.Sign(key, "msg_traced", ts, body)}})
	attempt.End()
	if resp.StatusCode != http.StatusAccepted || resp.Err != nil {
		t.Fatalf("send: %+v", resp)
	}
	r := <-got
	if !r.verified {
		t.Error("the receiver could not verify the signature of a traced request")
	}
	var client sdktrace.ReadOnlySpan
	for _, sp := range recorder.Ended() {
		if sp.SpanKind() == trace.SpanKindClient {
			client = sp
		}
	}
	if client == nil {
		t.Fatalf("no client span among %d spans", len(recorder.Ended()))
	}
	if client.Parent().SpanID() != attempt.SpanContext().SpanID() || client.SpanContext().TraceID() != attempt.SpanContext().TraceID() {
		t.Errorf("request span under %s in trace %s, want under the attempt %s", client.Parent().SpanID(), client.SpanContext().TraceID(), attempt.SpanContext().SpanID())
	}
	want := "00-" + client.SpanContext().TraceID().String() + "-" + client.SpanContext().SpanID().String() + "-01"
	if r.traceparent != want {
		t.Errorf("receiver saw traceparent %q, want the request span's %q", r.traceparent, want)
	}
	attrs := map[string]string{}
	for _, kv := range client.Attributes() {
		attrs[string(kv.Key)] = kv.Value.Emit()
	}
	if client.Name() != "POST" || attrs["http.response.status_code"] != "202" || attrs["server.address"] != "127.0.0.1" {
		t.Errorf("request span %q with attributes %v", client.Name(), attrs)
	}
}
