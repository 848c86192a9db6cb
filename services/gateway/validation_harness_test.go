package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The validation tests run the payment environment (newPayEnvWith) with
// private URLs allowed, so that the gateway may call the in-process
// sandbox's demo merchant on loopback, and a recorder in front of the
// sandbox that sees every validation call and every payment the providers
// receive.

// validationTimeout is the gateway's PAYGATE_VALIDATION_TIMEOUT in these
// tests: short enough for a quick timeout test, long enough for a loaded
// CI machine to answer on loopback.
const validationTimeout = "1s"

// demoRejectReason is the reason the sandbox's demo merchant gives at
// /merchant/validate/reject (docs/contracts-validation.md).
const demoRejectReason = "Rejected by the demo merchant."

// sandboxCall is a request the sandbox received.
type sandboxCall struct {
	Path string
	Body map[string]any
	// Raw and Header are the request's body and headers as received.
	Raw    []byte
	Header http.Header
}

// sandboxRecorder records the sandbox's traffic and serves /test/toggle, a
// validation endpoint whose answer a test switches.
type sandboxRecorder struct {
	mu          sync.Mutex
	validations []sandboxCall
	payments    []sandboxCall
	approve     atomic.Bool
}

func (r *sandboxRecorder) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(raw))
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		call := sandboxCall{Path: req.URL.RequestURI(), Body: body, Raw: raw, Header: req.Header.Clone()}
		switch {
		case req.URL.Path == "/test/toggle":
			r.mu.Lock()
			r.validations = append(r.validations, call)
			r.mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			if r.approve.Load() {
				_, _ = io.WriteString(w, `{"approved":true}`)
			} else {
				_, _ = io.WriteString(w, `{"approved":false,"reason":"Toggle says no."}`)
			}
			return
		case strings.HasPrefix(req.URL.Path, "/merchant/validate/"):
			r.mu.Lock()
			r.validations = append(r.validations, call)
			r.mu.Unlock()
		case req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/payments"):
			r.mu.Lock()
			r.payments = append(r.payments, call)
			r.mu.Unlock()
		}
		next.ServeHTTP(w, req)
	})
}

// validationsOf returns the validation calls made for a transaction, in
// the order received.
func (r *sandboxRecorder) validationsOf(txID string) []sandboxCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []sandboxCall
	for _, c := range r.validations {
		if c.Body["transactionId"] == txID {
			out = append(out, c)
		}
	}
	return out
}

// paymentsOf counts the payments a provider received under a reference.
func (r *sandboxRecorder) paymentsOf(reference string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.payments {
		if c.Body["reference"] == reference {
			n++
		}
	}
	return n
}

// validationEnv is a payment environment with the recorder.
type validationEnv struct {
	*payEnv
	sandbox  *sandboxRecorder
	merchant string // the demo merchant's base URL: <sandbox>/merchant
}

func newValidationEnv(t *testing.T) *validationEnv {
	t.Helper()
	rec := &sandboxRecorder{}
	e := newPayEnvWith(t, payEnvOptions{
		env:         map[string]string{"PAYGATE_ALLOW_PRIVATE_URLS": "true", "PAYGATE_VALIDATION_TIMEOUT": validationTimeout},
		wrapSandbox: rec.wrap,
	})
	var base string
	if err := e.pool.QueryRow(context.Background(), `SELECT base_url FROM provider_connections WHERE provider_id = 1`).Scan(&base); err != nil {
		t.Fatal(err)
	}
	return &validationEnv{payEnv: e, sandbox: rec, merchant: strings.TrimSuffix(base, "/govip") + "/merchant"}
}

// JSON shapes of docs/contracts-validation.md.
type (
	endpointJSON struct {
		ID         string `json:"id"`
		CollabID   int32  `json:"collabId"`
		URL        string `json:"url"`
		Priority   int32  `json:"priority"`
		Awaitable  bool   `json:"awaitable"`
		ForCashIn  bool   `json:"forCashIn"`
		ForCashOut bool   `json:"forCashOut"`
		MerchantID int32  `json:"merchantId"`
	}
	resultJSON struct {
		ValidationID  string `json:"validationId"`
		ValidationURL string `json:"validationUrl"`
		Status        int    `json:"status"`
		IsAwaitable   bool   `json:"isAwaitable"`
		EndpointID    string `json:"endpointId"`
		TransactionID string `json:"transactionId"`
		Priority      int32  `json:"priority"`
		ResponseCode  int32  `json:"responseCode"`
		Message       string `json:"message"`
		Attempts      int32  `json:"attempts"`
		UpdatedUtc    string `json:"updatedUtc"`
	}
	logJSON struct {
		Stage         string `json:"stage"`
		Level         string `json:"level"`
		Message       string `json:"message"`
		SourceContext string `json:"sourceContext"`
		AuthData      string `json:"authData"`
		Content       any    `json:"content"`
		Exception     *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"exception"`
	}
)

// endpoint creates a validation endpoint as c.
func (e *validationEnv) endpoint(t *testing.T, c *caller, body map[string]any) endpointJSON {
	t.Helper()
	var out endpointJSON
	c.must(t, http.StatusOK, http.MethodPost, "/api/v1/collabs/validation-endpoints", body, &out)
	return out
}

// clearEndpoints removes every endpoint of the test merchant's collabs.
func (e *validationEnv) clearEndpoints(t *testing.T) {
	t.Helper()
	e.exec(t, `DELETE FROM validation_endpoints WHERE collab_id IN ($1, $2)`, e.govip, e.qrph)
}

func (e *validationEnv) results(t *testing.T, txID string) []resultJSON {
	t.Helper()
	var out []resultJSON
	e.admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/transactions/"+txID+"/validation", nil, &out)
	return out
}

// waitResults waits until every result of a transaction is decided.
func (e *validationEnv) waitResults(t *testing.T, txID string) []resultJSON {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		rs := e.results(t, txID)
		decided := len(rs) > 0
		for _, r := range rs {
			decided = decided && r.Status != 0
		}
		if decided {
			return rs
		}
		if time.Now().After(deadline) {
			t.Fatalf("results of %s still pending: %+v", txID, rs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *validationEnv) journal(t *testing.T, txID string) []logJSON {
	t.Helper()
	var out []logJSON
	e.admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/logs/transactions/"+txID, nil, &out)
	return out
}

// pay starts a deposit on the GoVip collab and returns the answer.
func (e *validationEnv) pay(t *testing.T, nonce string) initJSON {
	t.Helper()
	return e.initialize(t, http.StatusOK, e.payload(nonce, "25.00", 1, "GCASH"))
}
