package validationclient_test

import (
	"context"
	"errors"
	"io"
	"net"
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

// TestCallerFailuresAreSentences checks that a call that fails is reported
// with a sentence of ours, which is what the result's message becomes, and
// never with the client's text (it names the resolver's address, the
// addresses dialled).
func TestCallerFailuresAreSentences(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := lis.Addr().String()
	lis.Close()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", netguard.DefaultResponseLimit+1))
	}))
	t.Cleanup(huge.Close)
	open := validationclient.New(netguard.Policy{AllowPrivate: true}, 2*time.Second)
	t.Cleanup(open.CloseIdleConnections)
	strict := validationclient.New(netguard.Policy{}, 2*time.Second)
	t.Cleanup(strict.CloseIdleConnections)
	for _, tt := range []struct {
		name   string
		caller *validationclient.Caller
		url    string
		want   string
	}{
		{"unknown host", open, "http://validator.invalid/validate", `The URL's host name "validator.invalid" was not found in DNS.`},
		{"nothing listening", open, "http://" + closed + "/", "The endpoint refused the connection: nothing accepts connections on the URL's port."},
		{"private address", strict, huge.URL, "Not called: the URL's host points to a private or reserved address, which is not allowed."},
		{"answer too large", open, huge.URL, "The endpoint's answer is larger than 64 KiB."},
	} {
		ex := tt.caller.Call(context.Background(), tt.url, []byte(`{}`), nil)
		if ex.Err == nil || ex.Failure != tt.want {
			t.Errorf("%s: failure %q (err %v), want %q", tt.name, ex.Failure, ex.Err, tt.want)
		}
		if status, msg := validation.Verdict(ex, 2*time.Second); status != validation.StatusFailed || msg != tt.want {
			t.Errorf("%s: verdict %v %q, want Failed %q", tt.name, status, msg, tt.want)
		}
	}
}
