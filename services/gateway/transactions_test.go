package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/httpapi"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/aesgcm"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// The payment tests run the gateway (run) against the real sandbox: its
// binary, built once per test process and started per environment on
// 127.0.0.1:0, behind a proxy on which a test may inject faults. The sandbox
// reaches the gateway through a forwarder, since the gateway's port is known
// only once it serves.

// sandboxBinary builds the sandbox once for every test of the process.
var sandboxBinary = sync.OnceValues(func() (string, error) {
	return servicetest.Build("github.com/paygate/paygate/services/sandbox")
})

// payEnv is a gateway with a sandbox and a merchant of the test's own.
type payEnv struct {
	*testGateway
	admin      *caller
	merchantID int32
	hash       string
	secret     []byte
	govip      int32
	qrph       int32
}

func newPayEnv(t *testing.T) *payEnv {
	t.Helper()
	return newPayEnvWith(t, payEnvOptions{})
}

// payEnvOptions adjust newPayEnvWith: env is added to the gateway's, and
// wrapSandbox, when set, wraps the sandbox's handler.
type payEnvOptions struct {
	env         map[string]string
	wrapSandbox func(http.Handler) http.Handler
}

func newPayEnvWith(t *testing.T, opts payEnvOptions) *payEnv {
	t.Helper()
	var target atomic.Pointer[url.URL]
	forward := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(target.Load()) }})
	t.Cleanup(forward.Close)

	bin, err := sandboxBinary()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := servicetest.Start(bin, map[string]string{
		"PAYGATE_HTTP_ADDR": "127.0.0.1:0", "PAYGATE_LOG_LEVEL": "info",
		"PAYGATE_SANDBOX_GATEWAY_URL": forward.URL, "PAYGATE_SANDBOX_WEBHOOK_SECRET": payment.DemoWebhookSecret,
		"PAYGATE_SANDBOX_OUTCOME": "success", "PAYGATE_SANDBOX_PENDING_FOR": "1s", "PAYGATE_SANDBOX_WEBHOOKS": "true",
		"PAYGATE_SANDBOX_PROVIDERS": "", "PAYGATE_SANDBOX_LATENCY": "0s",
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sb.Stop(); err != nil {
			t.Errorf("sandbox: %v", err)
		}
	})
	sandboxURL, _ := url.Parse(sb.HTTPURL)
	proxyTransport := &http.Transport{}
	t.Cleanup(proxyTransport.CloseIdleConnections)
	var sandboxHandler http.Handler = &httputil.ReverseProxy{Transport: proxyTransport,
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(sandboxURL) }}
	if opts.wrapSandbox != nil {
		sandboxHandler = opts.wrapSandbox(sandboxHandler)
	}
	sandbox := httptest.NewServer(sandboxHandler)
	t.Cleanup(sandbox.Close)

	g := newTestGateway(t, map[string]string{"PAYGATE_SANDBOX_URL": sandbox.URL, "PAYGATE_POLL_INTERVAL": "100ms"}, opts.env)
	u, _ := url.Parse(g.HTTPURL)
	target.Store(u)

	e := &payEnv{testGateway: g, admin: g.user(t, access.RoleAdmin)}
	e.merchantID = g.newMerchant(t)
	e.hash = "test-" + strconv.Itoa(int(e.merchantID))
	e.secret = []byte("secret-of-" + e.hash)
	box, err := aesgcm.New(aesgcm.DemoKey())
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := box.Seal(e.secret, payment.MerchantSecretOwner(e.merchantID))
	if err != nil {
		t.Fatal(err)
	}
	g.exec(t, `INSERT INTO merchant_api_secrets (merchant_id, secret_sealed) VALUES ($1, $2)`, e.merchantID, sealed)
	e.govip = g.initialize(t, e.admin, e.merchantID, 1, 1)
	e.qrph = g.initialize(t, e.admin, e.merchantID, 2, 3)
	return e
}

// payload is the spec 02 §3 payment payload.
func (e *payEnv) payload(nonce, amount string, providerID int32, payType string, tags ...string) map[string]any {
	if tags == nil {
		tags = []string{}
	}
	return map[string]any{
		"paymentData": map[string]any{"nonce": nonce, "amount": amount, "currency": "PHP", "providerId": providerID,
			"payType": payType, "providerTags": tags},
		"merchantData": map[string]any{"merchantHash": e.hash, "clientId": "client-7", "additionalData": map[string]any{"apiToken": "t0p", "note": "hi"}},
		"cashIn":       true,
	}
}

type initJSON struct {
	TransactionReferenceID string `json:"transactionReferenceId"`
	ID                     string `json:"id"`
	TransactionStatus      int    `json:"transactionStatus"`
}

type txJSON struct {
	ID                     string         `json:"id"`
	TransactionReferenceID string         `json:"transactionReferenceId"`
	TransactionStatus      int            `json:"transactionStatus"`
	Amount                 string         `json:"amount"`
	AppliedFeeID           string         `json:"appliedFeeId"`
	AppliedFeeType         int            `json:"appliedFeeType"`
	AppliedFeeAmount       string         `json:"appliedFeeAmount"`
	ProviderTransactionID  string         `json:"providerTransactionId"`
	MerchantName           string         `json:"merchantName"`
	MerchantClientID       string         `json:"merchantClientId"`
	Currency               string         `json:"currency"`
	CreatedUtc             string         `json:"createdUtc"`
	AccountData            map[string]any `json:"accountData"`
	PollingAttempts        int            `json:"pollingAttempts"`
}

func (e *payEnv) initialize(t *testing.T, want int, body map[string]any) initJSON {
	t.Helper()
	var out initJSON
	e.admin.must(t, want, http.MethodPost, "/api/v1/transactions/initialize", body, &out)
	return out
}

func (e *payEnv) get(t *testing.T, c *caller, id string) txJSON {
	t.Helper()
	var out txJSON
	c.must(t, http.StatusOK, http.MethodGet, "/api/v1/transactions/"+id, nil, &out)
	return out
}

// waitStatus waits until the transaction has status want.
func (e *payEnv) waitStatus(t *testing.T, id string, want int) txJSON {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := e.get(t, e.admin, id)
		if got.TransactionStatus == want {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("transaction %s has status %d, want %d", id, got.TransactionStatus, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *payEnv) count(t *testing.T) int64 {
	return e.queryInt(t, `SELECT count(*) FROM transactions WHERE merchant_id = $1`, e.merchantID)
}

// signed sends a merchant-signed initialize call.
func (e *payEnv) signed(t *testing.T, hash string, secret []byte, ts int64, body map[string]any, sig string) (int, []byte) {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, e.HTTPURL+"/api/v1/transactions/initialize", bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	if hash != "" {
		req.Header.Set(httpapi.HeaderMerchant, hash)
		req.Header.Set(httpapi.HeaderTimestamp, strconv.FormatInt(ts, 10))
		if sig == "" {
			sig = httpapi.Sign(secret, ts, raw)
		}
		req.Header.Set(httpapi.HeaderSignature, sig)
	}
	req.Header.Set("Grpc-Metadata-Paygate-Verified-Merchant", strconv.Itoa(int(e.merchantID))+".1.00")
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

func TestPayments(t *testing.T) {
	e := newPayEnv(t)
	sub, err := e.nc.SubscribeSync("paygate.events.>")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })

	var successID, successRef string
	t.Run("success with the demo fee, journaled", func(t *testing.T) {
		out := e.initialize(t, http.StatusOK, e.payload("n-success", "1000.00", 1, "GCASH"))
		if out.TransactionStatus != 4 || out.TransactionReferenceID == "" {
			t.Fatalf("answer %+v", out)
		}
		successID, successRef = out.ID, out.TransactionReferenceID
		got := e.get(t, e.admin, out.ID)
		if got.AppliedFeeType != 1 || got.AppliedFeeAmount != "15.00" || got.ProviderTransactionID == "" || got.AccountData["note"] != "hi" {
			t.Errorf("transaction %+v", got)
		}
		var logs []struct {
			Stage   string `json:"stage"`
			Content any    `json:"content"`
		}
		e.admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/logs/transactions/"+out.ID, nil, &logs)
		stages := map[string]bool{}
		for _, l := range logs {
			stages[l.Stage] = true
		}
		for _, s := range []string{"Initialization", "Transaction Creation", "API Request", "API Response", "Status Change"} {
			if !stages[s] {
				t.Errorf("no %s entry in %+v", s, logs)
			}
		}
		raw, _ := json.Marshal(logs)
		if bytes.Contains(raw, []byte("t0p")) {
			t.Errorf("a secret reached the journal: %s", raw)
		}
	})

	t.Run("a more specific fee wins", func(t *testing.T) {
		e.exec(t, `INSERT INTO fees (collab_id, currency_from, currency_to, fee_type, value, payer) VALUES ($1, 'PHP', 'PHP', 2, 7, 1)`, e.govip)
		out := e.initialize(t, http.StatusOK, e.payload("n-fee", "1000.00", 1, "1"))
		if got := e.get(t, e.admin, out.ID); got.AppliedFeeType != 2 || got.AppliedFeeAmount != "7.00" {
			t.Errorf("fee %+v", got)
		}
	})

	t.Run("failed and provider error", func(t *testing.T) {
		if out := e.initialize(t, http.StatusOK, e.payload("n-failed", "10", 1, "GCASH", "sandbox:outcome=failed")); out.TransactionStatus != -2 {
			t.Errorf("failed: %+v", out)
		}
		if out := e.initialize(t, http.StatusOK, e.payload("n-error", "10", 1, "GCASH", "sandbox:outcome=error")); out.TransactionStatus != -3 {
			t.Errorf("error: %+v", out)
		}
	})

	t.Run("pending to success by polling", func(t *testing.T) {
		out := e.initialize(t, http.StatusOK, e.payload("n-poll", "10", 1, "GCASH", "sandbox:outcome=pending-success", "sandbox:pending=300ms", "sandbox:webhook=off"))
		if out.TransactionStatus != 3 {
			t.Fatalf("answer %+v", out)
		}
		e.waitStatus(t, out.ID, 4)
	})

	t.Run("pending to failed by webhook", func(t *testing.T) {
		out := e.initialize(t, http.StatusOK, e.payload("n-hook", "10", 2, "QRPH", "sandbox:outcome=pending-failed", "sandbox:pending=200ms"))
		if out.TransactionStatus != 3 {
			t.Fatalf("answer %+v", out)
		}
		e.waitStatus(t, out.ID, -2)
		out = e.initialize(t, http.StatusOK, e.payload("n-hook-2", "10", 2, "QRPH", "sandbox:outcome=pending-success", "sandbox:pending=200ms"))
		e.waitStatus(t, out.ID, 4)
	})

	t.Run("the answer counts polling attempts", func(t *testing.T) {
		out := e.initialize(t, http.StatusOK, e.payload("n-polls", "10", 1, "GCASH"))
		e.exec(t, `UPDATE transactions SET poll_attempts = 12 WHERE id = $1`, out.ID)
		if got := e.get(t, e.admin, out.ID); got.PollingAttempts != 12 {
			t.Errorf("pollingAttempts = %d, want 12", got.PollingAttempts)
		}
	})

	t.Run("webhook with a wrong secret", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, e.HTTPURL+"/api/v1/providers/qrph/webhook", bytes.NewReader([]byte(`{"providerTransactionId":"x","status":"success"}`)))
		req.Header.Set(httpapi.HeaderWebhookSecret, "nope")
		resp, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("status %d", resp.StatusCode)
		}
	})

	// The edge's body checks come first on every route (issue 25), then the
	// secret, before the body's fields are read.
	t.Run("webhook: the body's edge checks, then the secret", func(t *testing.T) {
		post := func(secret string, body []byte) int {
			req, _ := http.NewRequest(http.MethodPost, e.HTTPURL+"/api/v1/providers/qrph/webhook", bytes.NewReader(body))
			req.Header.Set(httpapi.HeaderWebhookSecret, secret)
			resp, err := e.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			return resp.StatusCode
		}
		if code := post("nope", []byte(`{not json`)); code != http.StatusBadRequest {
			t.Errorf("wrong secret, broken body: %d, want 400", code)
		}
		if code := post("nope", bytes.Repeat([]byte("x"), server.MaxBodyBytes+1)); code != http.StatusRequestEntityTooLarge {
			t.Errorf("wrong secret, oversized body: %d, want 413", code)
		}
		if code := post("nope", []byte(`{"providerTransactionId":"x","status":"success"}`)); code != http.StatusUnauthorized {
			t.Errorf("wrong secret, good body: %d, want 401", code)
		}
		if code := post(payment.DemoWebhookSecret, bytes.Repeat([]byte("x"), server.MaxBodyBytes+1)); code != http.StatusRequestEntityTooLarge {
			t.Errorf("right secret, oversized body: %d, want 413", code)
		}
		if code := post(payment.DemoWebhookSecret, []byte(`{not json`)); code != http.StatusBadRequest {
			t.Errorf("right secret, broken body: %d, want 400", code)
		}
	})

	t.Run("nonce idempotency", func(t *testing.T) {
		before := e.count(t)
		first := e.initialize(t, http.StatusOK, e.payload("n-success", "1000.00", 1, "GCASH"))
		if first.ID != successID || e.count(t) != before {
			t.Errorf("same nonce made %+v (count %d → %d)", first, before, e.count(t))
		}
		e.initialize(t, http.StatusConflict, e.payload("n-success", "999.00", 1, "GCASH"))
	})

	t.Run("refusals write nothing", func(t *testing.T) {
		before := e.count(t)
		e.initialize(t, http.StatusBadRequest, e.payload("", "abc", 1, "GCASH"))
		many := make([]string, payment.MaxProviderTags+1)
		for i := range many {
			many[i] = "t" + strconv.Itoa(i)
		}
		e.initialize(t, http.StatusBadRequest, e.payload("r-tags", "10", 1, "GCASH", many...))
		e.initialize(t, http.StatusBadRequest, e.payload("r-tag-len", "10", 1, "GCASH", strings.Repeat("x", payment.MaxProviderTagLen+1)))
		deep := map[string]any{"v": 1}
		for range payment.MaxAdditionalDataDepth {
			deep = map[string]any{"d": deep}
		}
		big := map[string]any{"blob": strings.Repeat("x", payment.MaxAdditionalDataBytes)}
		for nonce, data := range map[string]map[string]any{"r-deep": deep, "r-big": big} {
			p := e.payload(nonce, "10", 1, "GCASH")
			p["merchantData"].(map[string]any)["additionalData"] = data
			e.initialize(t, http.StatusBadRequest, p)
		}
		e.initialize(t, http.StatusUnprocessableEntity, e.payload("r-paytype", "10", 1, "MAYA"))
		e.exec(t, `UPDATE collabs SET maximal_deposit_amount = 500 WHERE id = $1`, e.govip)
		e.initialize(t, http.StatusUnprocessableEntity, e.payload("r-limit", "500.01", 1, "GCASH"))
		e.exec(t, `UPDATE collabs SET maximal_deposit_amount = NULL, is_cash_in_enabled = false WHERE id = $1`, e.govip)
		e.initialize(t, http.StatusUnprocessableEntity, e.payload("r-direction", "10", 1, "GCASH"))
		e.exec(t, `UPDATE collabs SET is_cash_in_enabled = true, is_enabled = false WHERE id = $1`, e.govip)
		e.initialize(t, http.StatusUnprocessableEntity, e.payload("r-disabled", "10", 1, "GCASH"))
		e.exec(t, `UPDATE collabs SET is_enabled = true WHERE id = $1`, e.govip)
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/maintenance/enable", nil, nil)
		e.initialize(t, http.StatusUnprocessableEntity, e.payload("r-maintenance", "10", 1, "GCASH"))
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/maintenance/disable", nil, nil)
		if after := e.count(t); after != before {
			t.Errorf("refusals wrote %d transactions", after-before)
		}
	})

	t.Run("override with the status seen; stale is 409", func(t *testing.T) {
		path := "/api/v1/transactions/" + successID + "/status/-1"
		e.admin.must(t, http.StatusBadRequest, http.MethodPost, path, nil, nil)
		e.admin.must(t, http.StatusConflict, http.MethodPost, path+"?transactionStatus=3", nil, nil)
		var got txJSON
		e.admin.must(t, http.StatusOK, http.MethodPost, path+"?transactionStatus=4", nil, &got)
		if got.TransactionStatus != -1 {
			t.Errorf("after override %+v", got)
		}
		e.admin.must(t, http.StatusConflict, http.MethodPost, path+"?transactionStatus=4", nil, nil)
	})

	t.Run("merchant scope", func(t *testing.T) {
		other := e.user(t, access.RoleMerchantAdmin, 1)
		other.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/transactions/"+successID, nil, nil)
		other.must(t, http.StatusNotFound, http.MethodPost, "/api/v1/transactions/"+successID+"/status/4?transactionStatus=-1", nil, nil)
		other.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/logs/transactions/"+successID, nil, nil)
		own := e.user(t, access.RoleMerchantAdmin, e.merchantID)
		own.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+successID+"/status/4?transactionStatus=-1", nil, nil)
		e.user(t, access.RoleMerchant, e.merchantID).must(t, http.StatusForbidden, http.MethodPost, "/api/v1/transactions/"+successID+"/status/-1?transactionStatus=4", nil, nil)
		// Only admins start payments with a token.
		own.must(t, http.StatusForbidden, http.MethodPost, "/api/v1/transactions/initialize", e.payload("n-own", "10", 1, "GCASH"), nil)
	})

	t.Run("merchant signature", func(t *testing.T) {
		now := time.Now().Unix()
		st, body := e.signed(t, e.hash, e.secret, now, e.payload("n-signed", "10", 1, "GCASH"), "")
		if st != http.StatusOK {
			t.Fatalf("good signature: %d %s", st, body)
		}
		cases := []struct {
			name    string
			hash    string
			secret  []byte
			ts      int64
			sig     string
			payload map[string]any
			want    int
		}{
			{"bad signature", e.hash, []byte("wrong"), now, "", e.payload("n-s1", "10", 1, "GCASH"), 401},
			{"malformed signature", e.hash, e.secret, now, "v1=zz", e.payload("n-s2", "10", 1, "GCASH"), 401},
			{"stale timestamp", e.hash, e.secret, now - 600, "", e.payload("n-s3", "10", 1, "GCASH"), 401},
			{"unknown merchant", "nobody", e.secret, now, "", e.payload("n-s4", "10", 1, "GCASH"), 401},
			{"forged marker, no signature", "", nil, now, "", e.payload("n-s5", "10", 1, "GCASH"), 401},
			{"another merchant's hash in the body", e.hash, e.secret, now, "", func() map[string]any {
				p := e.payload("n-s6", "10", 1, "GCASH")
				p["merchantData"].(map[string]any)["merchantHash"] = "fence"
				return p
			}(), 403},
		}
		before := e.count(t)
		for _, c := range cases {
			if st, body := e.signed(t, c.hash, c.secret, c.ts, c.payload, c.sig); st != c.want {
				t.Errorf("%s: %d %s", c.name, st, body)
			}
		}
		if e.count(t) != before {
			t.Error("a refused signed call wrote a transaction")
		}
	})

	t.Run("events once per change", func(t *testing.T) {
		fence := e.initialize(t, http.StatusOK, e.payload("n-fence", "10", 1, "GCASH"))
		counts := map[string]map[string]int{}
		deadline := time.Now().Add(20 * time.Second)
		for {
			msg, err := sub.NextMsg(time.Until(deadline))
			if err != nil {
				t.Fatalf("waiting for the fence's events: %v", err)
			}
			var st *eventsv1.TransactionState
			switch msg.Subject {
			case "paygate.events.transaction_created":
				var ev eventsv1.TransactionCreated
				_ = proto.Unmarshal(msg.Data, &ev)
				st = ev.GetTransaction()
			case "paygate.events.transaction_updated":
				var ev eventsv1.TransactionUpdated
				_ = proto.Unmarshal(msg.Data, &ev)
				st = ev.GetTransaction()
			case "paygate.events.transaction_finalized":
				var ev eventsv1.TransactionFinalized
				_ = proto.Unmarshal(msg.Data, &ev)
				st = ev.GetTransaction()
			}
			if st == nil || st.GetMerchantId() != e.merchantID {
				continue
			}
			// By reference: every test's gateway publishes on these
			// subjects, and ids repeat from one test schema to the next.
			ref := st.GetReferenceId()
			if counts[ref] == nil {
				counts[ref] = map[string]int{}
			}
			counts[ref][msg.Subject]++
			if ref == fence.TransactionReferenceID && msg.Subject == "paygate.events.transaction_finalized" {
				break
			}
		}
		// successID: created, finalized (provider), finalized (-1 by admin), finalized (4 by merchant admin).
		want := map[string]int{"paygate.events.transaction_created": 1, "paygate.events.transaction_finalized": 3}
		for subj, n := range want {
			if counts[successRef][subj] != n {
				t.Errorf("%s: %d events, want %d (%v)", subj, counts[successRef][subj], n, counts[successRef])
			}
		}
		if counts[successRef]["paygate.events.transaction_updated"] != 0 {
			t.Errorf("updated events for a transaction never pending: %v", counts[successRef])
		}
		outboxRows := e.queryInt(t, `SELECT count(*) FROM outbox WHERE subject LIKE 'paygate.events.transaction_%'`)
		if outboxRows == 0 {
			t.Error("no transaction events in the outbox")
		}
	})
}
