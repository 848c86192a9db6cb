package httpapi_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/sandbox/internal/httpapi"
	"github.com/paygate/paygate/services/sandbox/internal/merchant"
	"github.com/paygate/paygate/services/sandbox/internal/simulator"
)

func newSandbox(t *testing.T) *httptest.Server {
	t.Helper()
	sim := simulator.New(simulator.Behaviour{Outcome: simulator.OutcomeSuccess}, nil, time.Now)
	srv := httptest.NewServer(httpapi.Handler(sim, slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url string, headers map[string]string, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s %s answered %s, not a JSON object", req.Method, req.URL.Path, raw)
	}
	return resp.StatusCode, m
}

func TestDemoMerchantValidation(t *testing.T) {
	t.Parallel()
	srv := newSandbox(t)
	body := `{"validationId":"1","transactionId":"2"}`
	if code, m := post(t, srv.URL+"/merchant/validate/approve", nil, body); code != 200 || m["approved"] != true {
		t.Errorf("approve = %d %v", code, m)
	}
	if code, m := post(t, srv.URL+"/merchant/validate/reject", nil, body); code != 200 || m["approved"] != false || m["reason"] != httpapi.RejectReason {
		t.Errorf("reject = %d %v", code, m)
	}
	start := time.Now()
	if code, m := post(t, srv.URL+"/merchant/validate/slow?ms=150", nil, body); code != 200 || m["approved"] != true || time.Since(start) < 150*time.Millisecond {
		t.Errorf("slow = %d %v after %s", code, m, time.Since(start))
	}
	for _, q := range []string{"", "?ms=abc", "?ms=-1", "?ms=60001"} {
		if code, _ := post(t, srv.URL+"/merchant/validate/slow"+q, nil, body); code != http.StatusBadRequest {
			t.Errorf("slow%s = %d, want 400", q, code)
		}
	}
}

func TestDemoMerchantCallbacks(t *testing.T) {
	t.Parallel()
	srv := newSandbox(t)
	callback := func(txID string, merchantID any) string {
		b, _ := json.Marshal(map[string]any{"type": "transaction.finalized", "timestamp": "2025-03-01T12:00:00Z",
			"data": map[string]any{"id": txID, "merchantId": merchantID, "transactionStatus": 4}})
		return string(b)
	}
	signed := func(id string, merchantID int64, body string, at time.Time) map[string]string {
		sig, err := merchant.Sign(merchant.DemoSecret(merchantID), id, at.Unix(), []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return map[string]string{"webhook-id": id, "webhook-timestamp": strconv.FormatInt(at.Unix(), 10), "webhook-signature": sig,
			"Content-Type": "application/json"}
	}
	now := time.Now()
	good := callback("101", 3)
	if code, m := post(t, srv.URL+"/merchant/callbacks", signed("msg_ok", 3, good, now), good); code != 200 || m["received"] != true {
		t.Errorf("good callback = %d %v", code, m)
	}
	// merchantId as a string names the same merchant.
	asText := callback("101", "3")
	if code, _ := post(t, srv.URL+"/merchant/callbacks", signed("msg_text", 3, asText, now), asText); code != 200 {
		t.Errorf("merchantId as a string = %d", code)
	}
	refusals := []struct {
		name    string
		headers map[string]string
		body    string
		want    int
	}{
		{"another merchant's secret", signed("msg_bad", 4, good, now), good, 401},
		{"stale", signed("msg_stale", 3, good, now.Add(-10*time.Minute)), good, 401},
		{"unsigned", map[string]string{"webhook-id": "msg_none"}, good, 401},
		{"body tampered", signed("msg_tamper", 3, good, now), callback("102", 3), 401},
		{"no merchant", signed("msg_nomerchant", 3, `{"data":{"id":"101"}}`, now), `{"data":{"id":"101"}}`, 400},
		{"not JSON", signed("msg_text_body", 3, "hello", now), "hello", 400},
	}
	for _, r := range refusals {
		if code, m := post(t, srv.URL+"/merchant/callbacks", r.headers, r.body); code != r.want || m["error"] == "" {
			t.Errorf("%s = %d %v, want %d", r.name, code, m, r.want)
		}
	}
	if code, _ := post(t, srv.URL+"/merchant/callbacks/fail", signed("msg_fail", 3, good, now), good); code != 500 {
		t.Errorf("fail = %d, want 500", code)
	}

	list := func(query string) []map[string]any {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/merchant/callbacks"+query, nil)
		code, m := do(t, req)
		if code != 200 {
			t.Fatalf("list%s = %d", query, code)
		}
		raw, _ := json.Marshal(m["callbacks"])
		var out []map[string]any
		if err := json.Unmarshal(raw, &out); err != nil || out == nil {
			t.Fatalf("callbacks %s", raw)
		}
		return out
	}
	all := list("")
	if len(all) != 2+len(refusals)+1 {
		t.Errorf("%d callbacks recorded, want every one received", len(all))
	}
	got := list("?webhookId=msg_ok")
	if len(got) != 1 || got[0]["transactionId"] != "101" || got[0]["merchantId"] != 3.0 || got[0]["signatureValid"] != true ||
		got[0]["answered"] != 200.0 || got[0]["type"] != "transaction.finalized" || got[0]["transactionStatus"] != 4.0 {
		t.Errorf("msg_ok recorded as %v", got)
	}
	if body, _ := got[0]["body"].(map[string]any); body["type"] != "transaction.finalized" {
		t.Errorf("body recorded as %v", got[0]["body"])
	}
	if got := list("?webhookId=msg_bad"); len(got) != 1 || got[0]["signatureValid"] != false || got[0]["answered"] != 401.0 {
		t.Errorf("msg_bad recorded as %v", got)
	}
	if got := list("?webhookId=msg_fail"); len(got) != 1 || got[0]["answered"] != 500.0 || got[0]["signatureValid"] != true {
		t.Errorf("msg_fail recorded as %v", got)
	}
	if got := list("?transactionId=101&webhookId=msg_text"); len(got) != 1 {
		t.Errorf("by transaction and webhook id: %v", got)
	}
	if got := list("?transactionId=999"); len(got) != 0 {
		t.Errorf("unknown transaction: %v", got)
	}
}
