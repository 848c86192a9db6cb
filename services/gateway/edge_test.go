package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/server"
)

// The edge of the gateway's HTTP port (issue 25): what every request with
// a body meets before any route, handler, query check or authorization.

// bodyRoute is a route that takes a request body.
type bodyRoute struct{ method, path string }

// bodyRoutes lists every POST, PUT, PATCH and DELETE route of the REST
// mapping (the merged OpenAPI document: the gateway's own services and
// those it forwards), with their path parameters filled in, and the
// gateway's routes beside the mapping.
func bodyRoutes(t *testing.T) []bodyRoute {
	t.Helper()
	data, err := os.ReadFile("../../gen/openapi/paygate.swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	var routes []bodyRoute
	for path, ops := range doc.Paths {
		for method := range ops {
			switch m := strings.ToUpper(method); m {
			case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
				routes = append(routes, bodyRoute{m, param.ReplaceAllString(path, "1")})
			}
		}
	}
	routes = append(routes, bodyRoute{http.MethodPost, "/api/v1/providers/qrph/webhook"})
	sort.Slice(routes, func(i, j int) bool { return routes[i].path+routes[i].method < routes[j].path+routes[j].method })
	if len(routes) < 50 {
		t.Fatalf("%d body routes; expected every service's", len(routes))
	}
	return routes
}

// sendRaw sends body to method path as c (no token when c is nil), chunked
// when chunked is set, and returns the status and the error body.
func (g *testGateway) sendRaw(t *testing.T, c *caller, method, path string, body []byte, chunked bool) (int, server.ErrorBody) {
	t.Helper()
	var rd io.Reader = bytes.NewReader(body)
	if chunked {
		rd = io.MultiReader(rd) // no length known: sent chunked
	}
	req, err := http.NewRequest(method, g.HTTPURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c != nil {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := g.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var eb server.ErrorBody
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &eb)
	return resp.StatusCode, eb
}

// oversized is a valid JSON object one byte over the body limit.
func oversized() []byte {
	const head, tail = `{"name":"`, `"}`
	return []byte(head + strings.Repeat("x", server.MaxBodyBytes+1-len(head)-len(tail)) + tail)
}

// TestEveryBodyRouteAnswers413First sends a body over the limit to every
// body route, with and without a token and without the query parameters a
// route requires: each answers 413 with the limit's sentence, before its
// handler, its query checks and its authorization. POST
// /api/v1/files/export without ?collabId read 10 MB whole and answered 400
// (its route sits beside the REST mapping, outside the mapping's limit).
func TestEveryBodyRouteAnswers413First(t *testing.T) {
	t.Parallel()
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	big := oversized()
	for _, r := range bodyRoutes(t) {
		for _, c := range []*caller{nil, admin} {
			code, eb := g.sendRaw(t, c, r.method, r.path, big, false)
			if code != http.StatusRequestEntityTooLarge || eb.Message != server.TooLargeMessage {
				t.Errorf("%s %s (token %v): %d %+v, want 413 %q", r.method, r.path, c != nil, code, eb, server.TooLargeMessage)
			}
		}
	}
	// A body of no announced length is measured as it is read.
	for _, path := range []string{"/api/v1/files/export", "/api/v1/files/export?collabId=1", "/api/v1/transactions/1/cancel"} {
		code, eb := g.sendRaw(t, admin, http.MethodPost, path, big, true)
		if code != http.StatusRequestEntityTooLarge || eb.Message != server.TooLargeMessage {
			t.Errorf("chunked POST %s: %d %+v, want 413", path, code, eb)
		}
	}
}

// TestEdgeChecksRunBeforeNoBodyRoutes sends broken JSON, invalid UTF-8 and
// an oversized body to the operator routes whose mapping binds no body:
// each is refused as on every other route, and the handler's change does
// not happen (issue 25: grpc-gateway never read their body, so the handler
// ran whatever the body held). A clean call last shows that each change
// would have been seen.
func TestEdgeChecksRunBeforeNoBodyRoutes(t *testing.T) {
	t.Parallel()
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	merchant := g.newMerchant(t)
	collab := g.initialize(t, admin, merchant, 1)
	seq := 0
	pending := func() string {
		seq++
		return g.seed(t, seedTx{merchant: merchant, collab: collab, provider: 1, typ: 1, status: 3, amount: "10.00",
			currency: "PHP", at: "2025-06-01T00:00:0" + strconv.Itoa(seq) + "Z"})
	}
	result := func(txID string) string {
		return strconv.FormatInt(g.queryInt(t, `
			INSERT INTO validation_results (transaction_id, url, priority, awaitable, status, message, created_at, updated_at)
			VALUES ($1, 'https://validator.invalid/check', 1, true, -1, 'No.', now(), now()) RETURNING id`, txID), 10)
	}
	// state is everything the handlers change: the transaction's row, its
	// journal, and its validation results.
	state := func(txID string) string {
		var s string
		err := g.pool.QueryRow(t.Context(), `
			SELECT (SELECT row_to_json(x)::text FROM transactions x WHERE id = $1)
				|| (SELECT count(*) FROM transaction_logs WHERE transaction_id = $1)::text
				|| COALESCE((SELECT json_agg(v ORDER BY v.id)::text FROM validation_results v WHERE transaction_id = $1), '[]')`,
			txID).Scan(&s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	bad := []struct {
		name string
		body []byte
		code int
		msg  string
	}{
		{"broken JSON", []byte(`{"a": [1, 2`), http.StatusBadRequest, "The request body is not valid JSON."},
		{"invalid UTF-8", []byte("{\"a\":\"\xff\xfe\"}"), http.StatusBadRequest, "The request body is not valid UTF-8 text."},
		{"oversized", oversized(), http.StatusRequestEntityTooLarge, server.TooLargeMessage},
	}
	for _, r := range []struct {
		name string
		path func(txID string) string
	}{
		{"cancel", func(id string) string { return "/api/v1/transactions/" + id + "/cancel?transactionStatus=3" }},
		{"callbacks cancel", func(id string) string { return "/api/v1/transactions/" + id + "/callbacks/cancel?transactionStatus=3" }},
		{"status", func(id string) string { return "/api/v1/transactions/" + id + "/status/4?transactionStatus=3" }},
		{"validation status", func(id string) string { return "/api/v1/validation/" + result(id) + "/status/1" }},
		{"validation retry", func(id string) string { return "/api/v1/validation/" + result(id) + "/retry" }},
	} {
		t.Run(r.name, func(t *testing.T) {
			id := pending()
			path := r.path(id)
			before := state(id)
			for _, b := range bad {
				code, eb := g.sendRaw(t, admin, http.MethodPost, path, b.body, false)
				if code != b.code || eb.Message != b.msg {
					t.Errorf("%s: POST %s = %d %+v, want %d %q", b.name, path, code, eb, b.code, b.msg)
				}
				if after := state(id); after != before {
					t.Fatalf("%s: the handler ran:\nbefore %s\nafter  %s", b.name, before, after)
				}
			}
			admin.must(t, http.StatusOK, http.MethodPost, path, nil, nil)
			if state(id) == before {
				t.Errorf("a clean POST %s changed nothing: the test would not see a handler run", path)
			}
		})
	}
}

// TestTextFiltersAreBounded sends every text filter of the transaction
// list, the export, the log search, the frauds list and the activity log
// one character over its bound (and the list's nonce 100,000 characters):
// each is a 400 naming the field by its JSON name, without echoing it, and
// the export schedules nothing (issue 25: the list's nonce and merchantCid
// took 100,000 characters, and an export stored them).
func TestTextFiltersAreBounded(t *testing.T) {
	t.Parallel()
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	collab := g.initialize(t, admin, g.newMerchant(t), 1)
	over := func(n int) string { return strings.Repeat("z", n+1) }
	refused := func(method, path string, body any, field string) {
		t.Helper()
		code, raw := admin.do(t, method, path, body)
		var eb server.ErrorBody
		_ = json.Unmarshal(raw, &eb)
		if code != http.StatusBadRequest || !strings.Contains(eb.Message, field+" must be at most") || strings.Contains(eb.Message, "zzzz") {
			t.Errorf("%s %s: %d %q, want 400 naming %s without echoing it", method, path[:min(len(path), 90)], code, eb.Message, field)
		}
	}
	list := "/api/v1/collabs/" + strconv.Itoa(int(collab)) + "/transactions/advanced?"
	refused(http.MethodGet, list+"nonce="+strings.Repeat("n", 100_000), nil, "nonce")
	filters := map[string]int{"providerTid": 100, "merchantCid": 120, "nonce": 100, "paymentMethodValue": 100,
		"paymentIpAddress": 100, "currency": 100, "from": 100, "to": 100, "minAmount": 100, "maxAmount": 100,
		"statuses": 100, "search": 100}
	for name, limit := range filters {
		refused(http.MethodGet, list+name+"="+over(limit), nil, name)
	}

	files := func() int64 { return g.queryInt(t, `SELECT count(*) FROM files`) }
	before := files()
	settings := map[string]any{"exportType": 1, "fileType": 0, "columns": map[string]string{"id": ""}}
	for name, limit := range filters {
		if name == "search" || name == "statuses" {
			continue // not filters of the export
		}
		refused(http.MethodPost, "/api/v1/files/export?collabId="+strconv.Itoa(int(collab)),
			map[string]any{"filter": map[string]any{name: over(limit)}, "settings": settings}, name)
	}
	refused(http.MethodPost, "/api/v1/files/export?collabId="+strconv.Itoa(int(collab)),
		map[string]any{"filter": map[string]any{"statuses": slices.Repeat([]int{4}, 51)}, "settings": settings}, "statuses")
	if n := files(); n != before {
		t.Errorf("refused exports scheduled %d files", n-before)
	}

	for name, limit := range map[string]int{"fromDate": 100, "toDate": 100, "amount": 100, "currency": 100, "merchantClientId": 120} {
		body := map[string]any{"transactionType": 1, "fromDate": "2025-03-01T08:00:00", "toDate": "2025-03-01T09:00:00", "searchTerm": "x"}
		body[name] = over(limit)
		refused(http.MethodPost, "/api/v1/transactions/search-in-logs", body, name)
	}
	for name, limit := range map[string]int{"clientId": 1000, "merchantClientId": 120, "referenceId": 100, "startDate": 100, "endDate": 100} {
		refused(http.MethodGet, "/api/v1/frauds?"+name+"="+over(limit), nil, name)
	}
	for _, name := range []string{"from", "to"} {
		refused(http.MethodGet, "/api/v1/logs/collabs/activity?"+name+"="+over(100), nil, name)
	}
}

// TestFilterDatesAreBounded sends the year 0000 and the last day of 2024 as
// every date filter of the gateway's lists, the export and the log search:
// each is a 400 naming the field; the console's earliest day, 2025-01-01,
// passes.
func TestFilterDatesAreBounded(t *testing.T) {
	t.Parallel()
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	collab := strconv.Itoa(int(g.initialize(t, admin, g.newMerchant(t), 1)))
	settings := map[string]any{"exportType": 1, "fileType": 0, "columns": map[string]string{"id": ""}}
	logSearch := func(from, to string) map[string]any {
		return map[string]any{"transactionType": 1, "fromDate": from, "toDate": to, "searchTerm": "x"}
	}
	for _, c := range []struct {
		method, path string
		body         func(date string) any
		field        string
	}{
		{http.MethodGet, "/api/v1/collabs/" + collab + "/transactions/advanced?from=", nil, "from"},
		{http.MethodGet, "/api/v1/collabs/" + collab + "/transactions/advanced?to=", nil, "to"},
		{http.MethodGet, "/api/v1/frauds?startDate=", nil, "startDate"},
		{http.MethodGet, "/api/v1/frauds?endDate=", nil, "endDate"},
		{http.MethodGet, "/api/v1/logs/collabs/activity?from=", nil, "from"},
		{http.MethodGet, "/api/v1/logs/collabs/activity?to=", nil, "to"},
		{http.MethodPost, "/api/v1/files/export?collabId=" + collab, func(d string) any {
			return map[string]any{"filter": map[string]any{"from": d}, "settings": settings}
		}, "from"},
		{http.MethodPost, "/api/v1/transactions/search-in-logs", func(d string) any { return logSearch(d, "2025-01-01T00:30:00Z") }, "fromDate"},
	} {
		for _, date := range []string{"0000-01-01T00:00:00Z", "2024-12-31T23:59:59Z", "2025-01-01T00:00:00Z"} {
			path, body := c.path, any(nil)
			if c.body == nil {
				path += url.QueryEscape(date)
			} else {
				body = c.body(date)
			}
			code, raw := admin.do(t, c.method, path, body)
			want := c.field + " must be a date from 2025-01-01 to 9999-12-30"
			if date == "2025-01-01T00:00:00Z" {
				if code >= 400 && strings.Contains(string(raw), want) {
					t.Errorf("%s %s: %d %s, want the first day accepted", c.method, path, code, raw)
				}
				continue
			}
			if code != http.StatusBadRequest || !strings.Contains(string(raw), want) {
				t.Errorf("%s %s (%s): %d %s, want 400 %q", c.method, path, date, code, raw, want)
			}
		}
	}
}

// TestNegativeIdsOnTheGatewaysRoutes sends -1 as the id of the gateway's
// routes beside the REST mapping (the download, the export's query) and of
// a few mapped ones: each is a 400 naming the id (issue 25).
func TestNegativeIdsOnTheGatewaysRoutes(t *testing.T) {
	t.Parallel()
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	settings := map[string]any{"exportType": 1, "fileType": 0, "columns": map[string]string{"id": ""}}
	for _, c := range []struct {
		method, path string
		body         any
		field        string
	}{
		{http.MethodGet, "/api/v1/files/-1", nil, "id"},
		{http.MethodPost, "/api/v1/files/export?collabId=-1", map[string]any{"settings": settings}, "collabId"},
		{http.MethodGet, "/api/v1/transactions/-1", nil, "id"},
		{http.MethodGet, "/api/v1/merchants/-1/collabs", nil, "merchantId"},
		{http.MethodGet, "/api/v1/fees?collabId=-1", nil, "collabId"},
		{http.MethodPost, "/api/v1/transactions/-1/cancel?transactionStatus=3", nil, "id"},
	} {
		code, raw := admin.do(t, c.method, c.path, c.body)
		var eb server.ErrorBody
		_ = json.Unmarshal(raw, &eb)
		if want := c.field + " must not be negative."; code != http.StatusBadRequest || eb.Message != want {
			t.Errorf("%s %s: %d %s, want 400 %q", c.method, c.path, code, raw, want)
		}
	}
}
