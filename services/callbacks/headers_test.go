package main

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/access"
)

// Custom headers (docs/contracts-callbacks.md, "Custom headers").

type headerJSON struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Secret bool   `json:"secret"`
}

type withHeadersJSON struct {
	ID      string       `json:"id"`
	Headers []headerJSON `json:"headers"`
}

const secretToken = "Bearer s3cret-token-0123456789"

func TestCustomHeaders(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	m := newMerchant(t)
	c := newCollab(t, m)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)

	// Bad input: 400 naming the field, nothing written.
	eleven := make([]map[string]any, 11)
	for i := range eleven {
		eleven[i] = map[string]any{"name": "X-H" + strconv.Itoa(i), "value": "v"}
	}
	for _, tc := range []struct {
		headers any
		want    string
	}{
		{[]map[string]any{{"name": "Webhook-Signature", "value": "v1,forged"}}, `headers[0].name "Webhook-Signature" is set by Paygate`},
		{[]map[string]any{{"name": "X-A", "value": "1"}, {"name": "content-type", "value": "text/plain"}}, `headers[1].name "content-type" is set by Paygate`},
		{[]map[string]any{{"name": "X-A", "value": "1"}, {"name": "x-a", "value": "2"}}, `headers[1].name "x-a" is listed twice.`},
		{[]map[string]any{{"name": "X Bad", "value": "1"}}, "headers[0].name must be a header name"},
		{[]map[string]any{{"name": "X-A", "value": "one\r\nX-Injected: 1"}}, "headers[0].value must be at most 1024 characters, without line breaks"},
		{[]map[string]any{{"name": "X-A", "value": strings.Repeat("v", 1025)}}, "headers[0].value must be at most 1024 characters"},
		{[]map[string]any{{"name": "X-A", "value": ""}}, "headers[0].value is required."},
		{[]map[string]any{{"name": "Authorization", "value": "", "secret": true}}, "headers[0].value is required."},
		{[]map[string]any{{"name": "", "value": "1"}}, "headers[0].name is required."},
		{eleven, "headers must list at most 10 headers."},
	} {
		status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks",
			map[string]any{"collabId": c, "callbackUrl": rec.URL, "headers": tc.headers})
		if status != http.StatusBadRequest || !strings.Contains(errorMessage(t, raw), tc.want) {
			t.Fatalf("headers %v = %d %s, want 400 %q", tc.headers, status, raw, tc.want)
		}
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM callback_urls`); n != 0 {
		t.Fatalf("a refused create wrote %d URLs", n)
	}

	// A plain and a secret header: the answer never holds the secret value,
	// the database holds it sealed.
	var u withHeadersJSON
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callbacks", map[string]any{
		"collabId": c, "callbackUrl": rec.URL, "maxAttempts": 2,
		"headers": []map[string]any{{"name": "X-Merchant-Route", "value": "eu-1"}, {"name": "Authorization", "value": secretToken, "secret": true}},
	}, &u)
	want := []headerJSON{{"X-Merchant-Route", "eu-1", false}, {"Authorization", "", true}}
	if len(u.Headers) != 2 || u.Headers[0] != want[0] || u.Headers[1] != want[1] {
		t.Fatalf("headers answered %+v, want %+v", u.Headers, want)
	}
	id, _ := strconv.ParseInt(u.ID, 10, 64)
	var sealed []byte
	var value *string
	if err := svc.pool.QueryRow(t.Context(), `SELECT value, sealed FROM callback_url_headers WHERE callback_url_id = $1 AND name = 'Authorization'`, id).
		Scan(&value, &sealed); err != nil {
		t.Fatal(err)
	}
	if value != nil || len(sealed) == 0 || bytes.Contains(sealed, []byte("s3cret")) {
		t.Fatalf("the secret header is stored as value %v, sealed %q: want it sealed only", value, sealed)
	}
	created := ev.urlChange(t, id, admin)
	if strings.Contains(created.GetNewValue(), "s3cret") || !strings.Contains(created.GetNewValue(), "X-Merchant-Route") {
		t.Fatalf("the change event's new value %s: want the headers without the secret value", created.GetNewValue())
	}
	var listed []withHeadersJSON
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/collabs/"+strconv.Itoa(int(c))+"/callbacks", nil, &listed)
	if len(listed) != 1 || len(listed[0].Headers) != 2 || listed[0].Headers[1].Value != "" {
		t.Fatalf("listed %+v", listed)
	}

	// A delivery carries both, the secret one opened, and its signature
	// still verifies.
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("paygate-demo-callback-secret-"+strconv.Itoa(int(m))))
	x1 := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x1)
	waitFor(t, 15*time.Second, "the first callback", func() bool { return len(rec.of(x1.id)) == 1 })
	got := rec.of(x1.id)[0]
	if got.header.Get("X-Merchant-Route") != "eu-1" || got.header.Get("Authorization") != secretToken {
		t.Fatalf("delivered headers %v", got.header)
	}
	verifyStandardWebhook(t, secret, got)

	// Replacing the set: the secret sent without a value keeps its value;
	// the plain one left out is gone.
	path := "/api/v1/callbacks/" + u.ID + "/headers"
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPut, path, map[string]any{
		"headers": []map[string]any{{"name": "authorization", "secret": true}, {"name": "X-Shard", "value": "7"}},
	}, &u)
	if len(u.Headers) != 2 || u.Headers[0] != (headerJSON{"authorization", "", true}) || u.Headers[1] != (headerJSON{"X-Shard", "7", false}) {
		t.Fatalf("headers after the edit %+v", u.Headers)
	}
	// A bad edit writes nothing.
	status, raw := call(t, admin, svc.HTTPURL, http.MethodPut, path, map[string]any{"headers": []map[string]any{{"name": "Host", "value": "evil.example"}}})
	if status != http.StatusBadRequest || !strings.Contains(errorMessage(t, raw), `headers[0].name "Host" is set by Paygate`) {
		t.Fatalf("bad edit = %d %s", status, raw)
	}
	// Retries (claimed from the database, not sent from memory) carry them
	// too.
	rec.status.Store(http.StatusServiceUnavailable)
	x2 := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x2)
	waitFor(t, 15*time.Second, "both attempts", func() bool { return len(rec.of(x2.id)) == 2 })
	for i, r := range rec.of(x2.id) {
		if r.header.Get("Authorization") != secretToken || r.header.Get("X-Shard") != "7" || r.header.Get("X-Merchant-Route") != "" {
			t.Fatalf("attempt %d headers %v", i+1, r.header)
		}
	}

	// Another merchant's admin does not see the URL; without Edit
	// Transactions the edit is refused.
	other := user(t, access.RoleMerchantAdmin, newMerchant(t))
	if status, raw := call(t, other, svc.HTTPURL, http.MethodPut, path, map[string]any{"headers": []any{}}); status != http.StatusNotFound {
		t.Fatalf("another merchant's admin = %d %s, want 404", status, raw)
	}
	support := user(t, access.RoleSupport)
	if status, raw := call(t, support, svc.HTTPURL, http.MethodPut, path, map[string]any{"headers": []any{}}); status != http.StatusForbidden {
		t.Fatalf("support = %d %s, want 403", status, raw)
	}
	// An empty set removes them all.
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPut, path, map[string]any{"headers": []any{}}, &u)
	if len(u.Headers) != 0 || svc.queryInt(t, `SELECT count(*) FROM callback_url_headers WHERE callback_url_id = $1`, id) != 0 {
		t.Fatalf("headers after clearing: %+v", u.Headers)
	}
}
