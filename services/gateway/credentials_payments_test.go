package main

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// headerSpy keeps the credentials header of the sandbox's payment calls.
type headerSpy struct {
	mu      sync.Mutex
	headers []string
}

func (s *headerSpy) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/payments") {
			s.mu.Lock()
			s.headers = append(s.headers, r.Header.Get("X-Paygate-Credentials"))
			s.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

func (s *headerSpy) last(t *testing.T) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.headers) == 0 {
		t.Fatal("the provider was not called")
	}
	raw, err := base64.RawURLEncoding.DecodeString(s.headers[len(s.headers)-1])
	if err != nil {
		t.Fatalf("credentials header: %v", err)
	}
	return string(raw)
}

// TestPaymentsCarryCredentials checks that the payment path calls a collab's
// provider with the collab's credentials (docs/contracts-credentials.md):
// the provider receives them, the transaction's log never holds them, and a
// provider refusing them fails the payment like any refusal.
func TestPaymentsCarryCredentials(t *testing.T) {
	t.Parallel()
	spy := &headerSpy{}
	e := newPayEnvWith(t, payEnvOptions{wrapSandbox: spy.wrap})

	// Without credentials the call carries none.
	out := e.initialize(t, http.StatusOK, e.payload("cred-none", "100.00", 1, "GCASH"))
	if out.TransactionStatus < 0 {
		t.Fatalf("a payment without credentials failed: %+v", out)
	}
	spy.mu.Lock()
	if h := spy.headers[len(spy.headers)-1]; h != "" {
		t.Errorf("a collab without credentials sent %q", h)
	}
	spy.mu.Unlock()

	e.admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(e.govip),
		map[string]any{"apiKey": "k-secret-77", "merchantId": "GV-1", "auth": map[string]any{"pin": 4321}}, nil)
	out = e.initialize(t, http.StatusOK, e.payload("cred-ok", "100.00", 1, "GCASH"))
	if out.TransactionStatus < 0 {
		t.Fatalf("a payment with credentials failed: %+v", out)
	}
	var sent map[string]any
	if err := json.Unmarshal([]byte(spy.last(t)), &sent); err != nil || sent["apiKey"] != "k-secret-77" ||
		sent["auth"].(map[string]any)["pin"] != float64(4321) {
		t.Errorf("the provider got credentials %v (%v)", sent, err)
	}
	var logs json.RawMessage
	e.admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/logs/transactions/"+out.ID, nil, &logs)
	if strings.Contains(string(logs), "k-secret-77") || strings.Contains(string(logs), "4321") {
		t.Errorf("the transaction's log holds the credentials: %s", logs)
	}

	// Credentials the provider refuses fail the payment (PSP error).
	e.admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(e.govip), map[string]any{"apiKey": "invalid-1"}, nil)
	out = e.initialize(t, http.StatusOK, e.payload("cred-bad", "100.00", 1, "GCASH"))
	if got := e.get(t, e.admin, out.ID); got.TransactionStatus >= 0 {
		t.Errorf("a payment with refused credentials has status %d, want an error", got.TransactionStatus)
	}
	if !strings.Contains(spy.last(t), `"invalid-1"`) {
		t.Errorf("the provider got %s", spy.last(t))
	}
}
