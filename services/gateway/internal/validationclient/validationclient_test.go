package validationclient_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/gateway/internal/validationclient"
	"github.com/paygate/paygate/services/internal/netguard"
)

// TestCaller calls a real HTTP server on loopback: the request as
// sent, answers read within the limit, timeouts told apart, and the netguard
// policy refusing loopback unless private URLs are allowed (redirects and
// DNS rebinding are netguard's own tests).
func TestCaller(t *testing.T) {
	t.Parallel()
	var got struct {
		method, contentType, body, webhookID string
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/approve", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.method, got.contentType, got.body, got.webhookID = r.Method, r.Header.Get("Content-Type"), string(b), r.Header.Get("webhook-id")
		_, _ = io.WriteString(w, `{"approved":false,"reason":"no"}`)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", netguard.DefaultResponseLimit+1))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	open := validationclient.New(netguard.Policy{AllowPrivate: true}, 2*time.Second)
	t.Cleanup(open.CloseIdleConnections)
	ctx := context.Background()

	ex := open.Call(ctx, srv.URL+"/approve", []byte(`{"validationId":"1"}`), map[string]string{"webhook-id": "vr_1_1"})
	if ex.Err != nil || ex.StatusCode != 200 || string(ex.ResponseBody) != `{"approved":false,"reason":"no"}` || ex.Elapsed <= 0 {
		t.Fatalf("exchange %+v", ex)
	}
	if got.method != http.MethodPost || got.contentType != "application/json" || got.body != `{"validationId":"1"}` || got.webhookID != "vr_1_1" {
		t.Errorf("the endpoint received %+v", got)
	}
	if ex.Method != http.MethodPost || ex.RequestHeaders["Content-Type"] != "application/json" || ex.RequestHeaders["webhook-id"] != "vr_1_1" {
		t.Errorf("request as journaled %+v", ex)
	}

	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if ex := open.Call(short, srv.URL+"/slow", nil, nil); !ex.Timeout || ex.Err == nil {
		t.Errorf("slow endpoint: %+v, want a timeout", ex)
	}

	if ex := open.Call(ctx, srv.URL+"/huge", nil, nil); ex.Err == nil || ex.StatusCode != 200 || len(ex.ResponseBody) != netguard.DefaultResponseLimit {
		t.Errorf("oversized answer: err %v, %d bytes kept", ex.Err, len(ex.ResponseBody))
	}

	guarded := validationclient.New(netguard.Policy{}, 2*time.Second)
	t.Cleanup(guarded.CloseIdleConnections)
	ex = guarded.Call(ctx, srv.URL+"/approve", nil, nil)
	if !errors.Is(ex.Err, netguard.ErrForbiddenAddress) || ex.StatusCode != 0 || ex.Timeout {
		t.Errorf("loopback under the default policy: %+v, want refused", ex)
	}
	if status, _ := validation.Verdict(ex, time.Second); status != validation.StatusFailed {
		t.Errorf("a refused address is %v, want Failed", status)
	}
}
