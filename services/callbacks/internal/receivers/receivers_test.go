package receivers_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/callbacks/internal/receivers"
	"github.com/paygate/paygate/services/internal/netguard"
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

	if resp := s.Send(ctx, callback.Request{URL: srv.URL + "/big-ok"}); resp.StatusCode != 200 || resp.Err == nil {
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
	if resp := s.Send(ctx, callback.Request{URL: srv.URL + "/slow"}); resp.StatusCode != 0 || resp.Err == nil || !strings.Contains(resp.Err.Error(), "timeout") {
		t.Fatalf("slow receiver: %+v", resp)
	}

	// A strict policy refuses the loopback receiver at connect time, even
	// though the URL was never checked.
	strict := newSender(t, netguard.Policy{}, time.Second, 0)
	before := got.Load()
	resp = strict.Send(ctx, callback.Request{URL: srv.URL + "/ok"})
	if resp.StatusCode != 0 || resp.Err == nil || !strings.Contains(resp.Err.Error(), "private or reserved") {
		t.Fatalf("strict sender: %+v", resp)
	}
	if got.Load() != before {
		t.Fatal("the strict sender reached the loopback receiver")
	}
}

// TestSendReasonsAreOurs checks that network failures are stored as short
// reasons of ours, never the network error's text (which can name internal
// addresses).
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
	s := newSender(t, netguard.Policy{AllowPrivate: true}, time.Second, 0)
	for _, tt := range []struct{ url, want string }{
		{"http://" + addr + "/", "the receiver refused the connection"},
		{hangup.URL + "/", "the receiver closed the connection before answering"},
		{"http://host.invalid/", "the URL's host could not be resolved"},
	} {
		resp := s.Send(context.Background(), callback.Request{URL: tt.url})
		if resp.Err == nil || resp.Err.Error() != tt.want {
			t.Errorf("%s: %v, want %q", tt.url, resp.Err, tt.want)
		}
		if resp.Err != nil && strings.Contains(resp.Err.Error(), "127.0.0.1") {
			t.Errorf("%s: reason names the address: %v", tt.url, resp.Err)
		}
	}
}
