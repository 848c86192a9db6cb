package providers_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/providers"
)

// TestFailuresAreSentences calls providers that fail for real and checks
// each exchange says why in a sentence of ours (what the transaction and
// its journal show) while keeping the client's error for the log.
func TestFailuresAreSentences(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := lis.Addr().String()
	lis.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/down/"):
			w.WriteHeader(http.StatusBadGateway)
		case strings.HasPrefix(r.URL.Path, "/text/"):
			_, _ = io.WriteString(w, "OK")
		}
	}))
	t.Cleanup(srv.Close)
	hc := &http.Client{Timeout: 2 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)
	c := providers.NewClient(hc)
	for _, tt := range []struct {
		name, base, want string
		network          bool
	}{
		{"nothing listening", "http://" + closed, "The provider refused the connection: nothing accepts connections on the URL's port.", true},
		{"unknown host", "http://psp.invalid", `The URL's host name "psp.invalid" was not found in DNS.`, true},
		{"an error status", srv.URL + "/down", "The provider answered HTTP 502.", false},
		{"not JSON", srv.URL + "/text", "The provider's answer is not JSON.", false},
	} {
		ex := c.PaymentStatus(context.Background(), payment.Connection{BaseURL: tt.base}, "tx-1")
		if ex.Err == nil || ex.Failure != tt.want || ex.Network != tt.network {
			t.Errorf("%s: failure %q, network %v (err %v); want %q, %v", tt.name, ex.Failure, ex.Network, ex.Err, tt.want, tt.network)
		}
	}
}
