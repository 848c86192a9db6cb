package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/access"
)

type listJSON struct {
	Transactions []txJSON          `json:"transactions"`
	TotalCount   int               `json:"totalCount"`
	TotalPages   int               `json:"totalPages"`
	CurrentPage  int               `json:"currentPage"`
	TotalAmounts map[string]string `json:"totalAmounts"`
}

// seedTx is a transaction written straight to the table, with a chosen
// creation time, for the list tests.
type seedTx struct {
	merchant, collab, provider int32
	typ, status                int
	amount, currency           string
	at                         string
	ptid, mcid, ip, pmValue    string
	pmType                     int
}

func (g *testGateway) seed(t *testing.T, s seedTx) string {
	t.Helper()
	var ptid any
	if s.ptid != "" {
		ptid = s.ptid
	}
	var id int64
	err := g.pool.QueryRow(t.Context(), `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, amount, currency,
			destination_amount, destination_currency, provider_transaction_id, payment_ip_address,
			payment_method_type, payment_method_value, created_at, updated_at)
		VALUES ($14, $1, $2, $3, 1, 'Seed merchant', 'Seed provider', 'GCash', $15, $5, $6, $7, $8::numeric, $9,
			$8::numeric, $9, $10, $11, $12, $13, $4, $4)
		RETURNING id`,
		s.merchant, s.collab, s.provider, s.at, s.mcid, s.typ, s.status, s.amount, s.currency, ptid, s.ip, s.pmType, s.pmValue,
		"SEED-"+strconv.Itoa(int(s.merchant))+"-"+s.at, "n-"+s.at).Scan(&id)
	if err != nil {
		t.Fatalf("seed %+v: %v", s, err)
	}
	return strconv.FormatInt(id, 10)
}

func (c *caller) list(t *testing.T, collabID int32, query string) listJSON {
	t.Helper()
	var out listJSON
	c.must(t, http.StatusOK, http.MethodGet, "/api/v1/collabs/"+strconv.Itoa(int(collabID))+"/transactions/advanced?"+query, nil, &out)
	return out
}

func ids(l listJSON) []string {
	out := make([]string, 0, len(l.Transactions))
	for _, tx := range l.Transactions {
		out = append(out, tx.ID)
	}
	return out
}

func TestTransactionList(t *testing.T) {
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	ma, mb := g.newMerchant(t), g.newMerchant(t)
	a1 := g.initialize(t, admin, ma, 1, 1)
	a2 := g.initialize(t, admin, ma, 2, 3)
	b1 := g.initialize(t, admin, mb, 1, 1)
	x1 := g.seed(t, seedTx{merchant: ma, collab: a1, provider: 1, typ: 1, status: 4, amount: "100.00", currency: "PHP",
		at: "2025-02-01T10:00:00Z", ptid: "P-1", mcid: "c-1", ip: "10.0.0.1", pmValue: "09171234567", pmType: 1})
	x2 := g.seed(t, seedTx{merchant: ma, collab: a1, provider: 1, typ: 1, status: -2, amount: "50.50", currency: "PHP",
		at: "2025-02-02T10:00:00Z", mcid: "c-2"})
	x3 := g.seed(t, seedTx{merchant: ma, collab: a1, provider: 1, typ: 2, status: 4, amount: "20.00", currency: "USD",
		at: "2025-02-03T10:00:00Z", mcid: "c-1", pmValue: "0xabc", pmType: 2})
	x4 := g.seed(t, seedTx{merchant: ma, collab: a2, provider: 2, typ: 1, status: 3, amount: "7.25", currency: "PHP",
		at: "2025-02-04T10:00:00Z"})
	x5 := g.seed(t, seedTx{merchant: mb, collab: b1, provider: 1, typ: 1, status: 4, amount: "999.00", currency: "PHP",
		at: "2025-02-02T12:00:00Z"})
	mA := "MerchantId=" + strconv.Itoa(int(ma))

	t.Run("each filter alone and combined", func(t *testing.T) {
		t.Parallel()
		cases := []struct {
			name   string
			collab int32
			query  string
			want   []string
		}{
			{"collab, newest first", a1, "take=100", []string{x3, x2, x1}},
			{"every collab of a merchant", 0, mA, []string{x4, x3, x2, x1}},
			{"type", 0, mA + "&type=2", []string{x3}},
			{"statuses as a comma list", 0, mA + "&statuses=4,-2", []string{x3, x2, x1}},
			{"statuses repeated", 0, mA + "&statuses=4&statuses=3", []string{x4, x3, x1}},
			{"provider tid", 0, mA + "&providerTid=P-1", []string{x1}},
			{"merchant cid", 0, mA + "&merchantCid=c-1", []string{x3, x1}},
			{"nonce", 0, mA + "&nonce=n-2025-02-02T10:00:00Z", []string{x2}},
			{"zone-less dates are UTC", 0, mA + "&from=2025-02-02T00:00:00&to=2025-02-03T23:59:59.999", []string{x3, x2}},
			{"RFC 3339 with an offset, bounds inclusive", 0, mA + "&from=" + url.QueryEscape("2025-02-02T18:00:00+08:00") + "&to=2025-02-03T10:00:00Z", []string{x3, x2}},
			{"amount range", 0, mA + "&minAmount=20&maxAmount=100.00", []string{x3, x2, x1}},
			{"min amount", 0, mA + "&minAmount=50.51", []string{x1}},
			{"currency, any case", 0, mA + "&currency=usd", []string{x3}},
			{"payment method value", 0, mA + "&paymentMethodValue=0xabc", []string{x3}},
			{"payment method type", 0, mA + "&paymentMethodType=1", []string{x1}},
			{"payment ip", 0, mA + "&paymentIpAddress=10.0.0.1", []string{x1}},
			{"combined", a1, "type=1&statuses=4,-2&currency=PHP&from=2025-02-01&to=2025-02-01T23:59:59&merchantCid=c-1", []string{x1}},
			{"all collabs in a window", 0, "from=2025-02-02T00:00:00&to=2025-02-02T23:59:59&" + mA + "&take=10", []string{x2}},
			{"search by id ignores the filters", 0, "search=" + x2 + "&type=2", []string{x2}},
			{"another merchant's collab through the merchant filter", b1, mA, []string{}},
		}
		for _, tc := range cases {
			got := admin.list(t, tc.collab, tc.query)
			if !slices.Equal(ids(got), tc.want) || got.TotalCount != len(tc.want) {
				t.Errorf("%s: %s = %v (total %d), want %v", tc.name, tc.query, ids(got), got.TotalCount, tc.want)
			}
		}
	})

	t.Run("search by reference", func(t *testing.T) {
		t.Parallel()
		ref := admin.list(t, 0, mA+"&nonce=n-2025-02-03T10:00:00Z").Transactions[0].TransactionReferenceID
		if got := admin.list(t, 0, "search="+url.QueryEscape(ref)); !slices.Equal(ids(got), []string{x3}) {
			t.Errorf("search %s = %v", ref, ids(got))
		}
	})

	t.Run("paging and totals", func(t *testing.T) {
		t.Parallel()
		p1 := admin.list(t, 0, mA+"&take=3&page=1&includeTotalAmounts=true")
		if !slices.Equal(ids(p1), []string{x4, x3, x2}) || p1.TotalCount != 4 || p1.TotalPages != 2 || p1.CurrentPage != 1 {
			t.Errorf("page 1: %v %+v", ids(p1), p1)
		}
		if p1.TotalAmounts["PHP"] != "157.75" || p1.TotalAmounts["USD"] != "20.00" || len(p1.TotalAmounts) != 2 {
			t.Errorf("totals %v", p1.TotalAmounts)
		}
		p2 := admin.list(t, 0, mA+"&take=3&page=2")
		if !slices.Equal(ids(p2), []string{x1}) || p2.CurrentPage != 2 || len(p2.TotalAmounts) != 0 {
			t.Errorf("page 2: %v %+v", ids(p2), p2)
		}
		if p3 := admin.list(t, 0, mA+"&take=3&page=3"); len(p3.Transactions) != 0 || p3.TotalCount != 4 {
			t.Errorf("page 3: %+v", p3)
		}
		if d := admin.list(t, 0, mA); len(d.Transactions) != 4 || d.TotalPages != 1 {
			t.Errorf("default take: %+v", d)
		}
	})

	t.Run("invalid filters are 400 with the details", func(t *testing.T) {
		t.Parallel()
		for _, q := range []string{"take=101", "statuses=99", "statuses=x", "from=yesterday", "minAmount=5&maxAmount=1",
			"type=3", "page=-1", "page=0", "take=0", "from=2025-02-03&to=2025-02-01", "minAmount=1.234", "paymentMethodType=7"} {
			var e struct{ Code, Message string }
			admin.must(t, http.StatusBadRequest, http.MethodGet, "/api/v1/collabs/0/transactions/advanced?"+q, nil, &e)
			if e.Code != "invalid" || !strings.Contains(e.Message, "filters") {
				t.Errorf("%s: %+v", q, e)
			}
		}
	})

	t.Run("merchant scope", func(t *testing.T) {
		t.Parallel()
		ua := g.user(t, access.RoleMerchant, ma)
		window := "from=2025-01-01&to=2025-03-01"
		if got := ua.list(t, 0, window); !slices.Equal(ids(got), []string{x4, x3, x2, x1}) {
			t.Errorf("merchant A, every collab: %v", ids(got))
		}
		if got := ua.list(t, b1, window); len(got.Transactions) != 0 || got.TotalCount != 0 {
			t.Errorf("merchant A through B's collab: %+v", got)
		}
		if got := ua.list(t, 0, window+"&MerchantId="+strconv.Itoa(int(mb))+"&includeTotalAmounts=true"); len(got.Transactions) != 0 || len(got.TotalAmounts) != 0 {
			t.Errorf("merchant A asking for B: %+v", got)
		}
		if got := ua.list(t, 0, "search="+x5); len(got.Transactions) != 0 {
			t.Errorf("merchant A searching B's id: %+v", got)
		}
		if got := g.user(t, access.RoleMerchant, mb).list(t, 0, window); !slices.Equal(ids(got), []string{x5}) {
			t.Errorf("merchant B: %v", ids(got))
		}
		g.user(t, access.RoleMerchant).must(t, http.StatusOK, http.MethodGet, "/api/v1/collabs/0/transactions/advanced", nil, nil)
		(&caller{g: g}).must(t, http.StatusUnauthorized, http.MethodGet, "/api/v1/collabs/0/transactions/advanced", nil, nil)
	})
}

// sseClient reads `event: transaction` data of a stream.
type sseClient struct {
	events chan map[string]any
	resp   *http.Response
}

func (g *testGateway) stream(t *testing.T, c *caller, viaQuery bool) *sseClient {
	t.Helper()
	u := g.HTTPURL + "/api/v1/transactions/stream"
	if viaQuery {
		u += "?access_token=" + url.QueryEscape(c.token)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
	if !viaQuery {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	s := &sseClient{events: make(chan map[string]any, 100), resp: resp}
	t.Cleanup(func() { _ = resp.Body.Close() })
	go func() {
		sc := bufio.NewScanner(resp.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "transaction":
				var m map[string]any
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &m) == nil {
					s.events <- m
				}
			case line == "":
				event = ""
			}
		}
		close(s.events)
	}()
	return s
}

// waitFor returns the first event about transaction id within d.
func (s *sseClient) waitFor(id string, d time.Duration) (map[string]any, bool) {
	timeout := time.After(d)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return nil, false
			}
			if ev["id"] == id {
				return ev, true
			}
		case <-timeout:
			return nil, false
		}
	}
}

func TestTransactionOperations(t *testing.T) {
	e := newPayEnv(t)
	pending := func(t *testing.T, nonce string, provider int32, payType string) string {
		t.Helper()
		out := e.initialize(t, http.StatusOK, e.payload(nonce, "10", provider, payType,
			"sandbox:outcome=pending-success", "sandbox:pending=60s", "sandbox:webhook=off"))
		if out.TransactionStatus != 3 {
			t.Fatalf("%s: status %d, want 3", nonce, out.TransactionStatus)
		}
		return out.ID
	}
	success := e.initialize(t, http.StatusOK, e.payload("ops-success", "10", 1, "GCASH")).ID

	t.Run("cancel with the status seen; stale is 409", func(t *testing.T) {
		id := pending(t, "ops-cancel", 1, "GCASH")
		e.admin.must(t, http.StatusBadRequest, http.MethodPost, "/api/v1/transactions/"+id+"/cancel", nil, nil)
		e.admin.must(t, http.StatusConflict, http.MethodPost, "/api/v1/transactions/"+id+"/cancel?transactionStatus=4", nil, nil)
		var got struct {
			TransactionStatus         int  `json:"transactionStatus"`
			IsCallbackSendingCanceled bool `json:"isCallbackSendingCanceled"`
		}
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+id+"/cancel?transactionStatus=3", nil, &got)
		if got.TransactionStatus != -1 || !got.IsCallbackSendingCanceled {
			t.Errorf("after cancel: %+v", got)
		}
		if n := e.queryInt(t, `SELECT count(*) FROM transaction_logs WHERE transaction_id = $1 AND stage = 'UI Update'`, id); n != 1 {
			t.Errorf("UI Update entries: %d", n)
		}
		e.user(t, access.RoleMerchantAdmin, 1).must(t, http.StatusNotFound, http.MethodPost, "/api/v1/transactions/"+id+"/cancel?transactionStatus=-1", nil, nil)
		e.user(t, access.RoleMerchant, e.merchantID).must(t, http.StatusForbidden, http.MethodPost, "/api/v1/transactions/"+id+"/cancel?transactionStatus=-1", nil, nil)
	})

	t.Run("callbacks cancel with the status seen; stale is 409", func(t *testing.T) {
		e.admin.must(t, http.StatusConflict, http.MethodPost, "/api/v1/transactions/"+success+"/callbacks/cancel?transactionStatus=3", nil, nil)
		var got struct {
			TransactionStatus         int  `json:"transactionStatus"`
			IsCallbackSendingCanceled bool `json:"isCallbackSendingCanceled"`
		}
		e.user(t, access.RoleMerchantAdmin, e.merchantID).must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+success+"/callbacks/cancel?transactionStatus=4", nil, &got)
		if got.TransactionStatus != 4 || !got.IsCallbackSendingCanceled {
			t.Errorf("after callbacks cancel: %+v", got)
		}
	})

	t.Run("enqueue: 202 when not final, 422 when final", func(t *testing.T) {
		msg := e.admin.refusedMsg(t, http.StatusUnprocessableEntity, "/api/v1/transactions/"+success+"/enqueue")
		if !strings.Contains(msg, "final") {
			t.Errorf("message %q", msg)
		}
		id := pending(t, "ops-restart", 1, "GCASH")
		var got struct {
			ID                string `json:"id"`
			TransactionStatus int    `json:"transactionStatus"`
		}
		e.admin.must(t, http.StatusAccepted, http.MethodPost, "/api/v1/transactions/"+id+"/enqueue", nil, &got)
		if got.ID != id || got.TransactionStatus != 3 {
			t.Errorf("after restart: %+v", got)
		}
		if n := e.queryInt(t, `SELECT count(*) FROM transaction_logs WHERE transaction_id = $1 AND stage = 'API Request'`, id); n != 2 {
			t.Errorf("provider requests after a restart: %d, want 2", n)
		}
		e.admin.must(t, http.StatusNotFound, http.MethodPost, "/api/v1/transactions/999999999/enqueue", nil, nil)
	})

	t.Run("polling enqueue: 202 when not final and polling is supported", func(t *testing.T) {
		e.admin.refusedMsg(t, http.StatusUnprocessableEntity, "/api/v1/transactions/"+success+"/polling/enqueue")
		id := pending(t, "ops-poll", 1, "GCASH")
		e.admin.must(t, http.StatusAccepted, http.MethodPost, "/api/v1/transactions/"+id+"/polling/enqueue", nil, nil)
		if n := e.queryInt(t, `SELECT count(*) FROM transaction_logs WHERE transaction_id = $1 AND stage = 'Polling' AND source_context = 'payment.EnqueuePolling'`, id); n != 1 {
			t.Errorf("polling queue entries: %d", n)
		}
		if e.queryInt(t, `SELECT count(*) FROM providers WHERE id = 2 AND NOT supports_polling`) == 1 {
			qid := pending(t, "ops-poll-qrph", 2, "QRPH")
			if msg := e.admin.refusedMsg(t, http.StatusUnprocessableEntity, "/api/v1/transactions/"+qid+"/polling/enqueue"); !strings.Contains(msg, "polling") {
				t.Errorf("message %q", msg)
			}
		}
	})

	t.Run("search in logs: exact and partial", func(t *testing.T) {
		nonce := "srch-unique-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		id := e.initialize(t, http.StatusOK, e.payload(nonce, "12.34", 1, "GCASH")).ID
		now := time.Now().UTC()
		window := map[string]any{"transactionType": 1, "fromDate": now.Add(-10 * time.Minute).Format("2006-01-02T15:04:05"),
			"toDate": now.Add(10 * time.Minute).Format("2006-01-02T15:04:05")}
		search := func(c *caller, extra map[string]any) (out struct {
			TotalCount   int `json:"totalCount"`
			Transactions []struct {
				ID             string `json:"id"`
				MatchedJSONKey string `json:"matchedJsonKey"`
				MatchScore     int    `json:"matchScore"`
				JSONSource     string `json:"jsonSource"`
				MerchantName   string `json:"merchantName"`
			} `json:"transactions"`
		}) {
			body := map[string]any{}
			for k, v := range window {
				body[k] = v
			}
			for k, v := range extra {
				body[k] = v
			}
			c.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/search-in-logs", body, &out)
			return out
		}
		exact := search(e.admin, map[string]any{"searchTerm": nonce})
		if exact.TotalCount != 1 || exact.Transactions[0].ID != id || exact.Transactions[0].MatchScore != 1 ||
			exact.Transactions[0].MatchedJSONKey != "nonce" || exact.Transactions[0].JSONSource != "Initialization" {
			t.Errorf("exact: %+v", exact)
		}
		partial := search(e.admin, map[string]any{"searchTerm": strings.ToUpper(nonce[5 : len(nonce)-1]), "amount": "12.34", "currency": "php"})
		if partial.TotalCount != 1 || partial.Transactions[0].ID != id || partial.Transactions[0].MatchScore != 2 {
			t.Errorf("partial: %+v", partial)
		}
		if none := search(e.admin, map[string]any{"searchTerm": nonce, "amount": "12.35"}); none.TotalCount != 0 {
			t.Errorf("other amount: %+v", none)
		}
		if other := search(e.user(t, access.RoleMerchantSupport, 1), map[string]any{"searchTerm": nonce}); other.TotalCount != 0 {
			t.Errorf("another merchant's user: %+v", other)
		}
		local := now.Add(8 * time.Hour)
		tz := search(e.admin, map[string]any{"searchTerm": nonce, "timezoneOffsetMinutes": 480,
			"fromDate": local.Add(-5 * time.Minute).Format("2006-01-02T15:04:05"), "toDate": local.Add(5 * time.Minute).Format("2006-01-02T15:04:05")})
		if tz.TotalCount != 1 {
			t.Errorf("UTC+8 window: %+v", tz)
		}
		for _, bad := range []map[string]any{
			{"searchTerm": ""},
			{"searchTerm": strings.Repeat("x", 301)},
			{"searchTerm": "x", "toDate": now.Add(2 * time.Hour).Format("2006-01-02T15:04:05")},
			{"searchTerm": "x", "currency": "ABCDEFGHIJK"},
			{"searchTerm": "x", "amount": "0.001"},
			{"searchTerm": "x", "transactionType": 0},
		} {
			body := map[string]any{}
			for k, v := range window {
				body[k] = v
			}
			for k, v := range bad {
				body[k] = v
			}
			e.admin.must(t, http.StatusBadRequest, http.MethodPost, "/api/v1/transactions/search-in-logs", body, nil)
		}
	})

	t.Run("stream: an event in scope, none out of scope", func(t *testing.T) {
		(&caller{g: e.testGateway}).must(t, http.StatusUnauthorized, http.MethodGet, "/api/v1/transactions/stream", nil, nil)
		mine := e.testGateway.stream(t, e.user(t, access.RoleMerchant, e.merchantID), true)
		admin := e.testGateway.stream(t, e.admin, false)
		others := e.testGateway.stream(t, e.user(t, access.RoleMerchant, fenceMerchantID), true)
		id := pending(t, "ops-stream", 1, "GCASH")
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+id+"/cancel?transactionStatus=3", nil, nil)
		ev, ok := mine.waitFor(id, 10*time.Second)
		if !ok {
			t.Fatal("no event for a change in scope")
		}
		for ok && ev["transactionStatus"] != float64(-1) {
			ev, ok = mine.waitFor(id, 10*time.Second)
		}
		if !ok || ev["merchantId"] != float64(e.merchantID) || ev["updatedUtc"] == "" {
			t.Errorf("event %v", ev)
		}
		if _, ok := admin.waitFor(id, 10*time.Second); !ok {
			t.Error("the admin saw no event")
		}
		if ev, ok := others.waitFor(id, 500*time.Millisecond); ok {
			t.Errorf("another merchant's user saw %v", ev)
		}
	})
}

// refusedMsg posts to path, expects status and returns the error message.
func (c *caller) refusedMsg(t *testing.T, status int, path string) string {
	t.Helper()
	var e struct{ Code, Message string }
	c.must(t, status, http.MethodPost, path, nil, &e)
	return e.Message
}

// totalsCase is a list query and the same filter in SQL, for the oracle.
type totalsCase struct {
	query, where string
}

// TestTransactionListTotals checks the count, the per-currency totals and a
// page of the list against the rows themselves, for every filter the
// rollups of migration 0010 can count (and one they cannot) over ranges
// whose ends fall on hours, inside hours, in whole-hour and half-hour time
// zones: with every change still in the deltas, after a fold, after
// concurrent compare-and-set status changes (through the API and straight
// in SQL), inserts and deletes with folds and a rebuild running meanwhile,
// and after a rebuild. It also shows that whole days and hours are read from the
// rollups and the partial hours from the rows (a tampered rollup row is seen
// or not), and that the list counts rows while the rollups are not built.
func TestTransactionListTotals(t *testing.T) {
	// The recovery sweep must not resolve the Not Confirmed rows meanwhile,
	// and the test folds the deltas itself.
	g := newTestGateway(t, map[string]string{"PAYGATE_RECOVERY_AFTER": "1h", "PAYGATE_TOTALS_FOLD_INTERVAL": "0s"})
	admin := g.user(t, access.RoleAdmin)
	m := g.newMerchant(t)
	c := g.initialize(t, admin, m, 1, 1)
	store := postgres.NewPayments(g.pool)
	ctx := t.Context()

	// 400 rows over five days from 2025-03-01 UTC: every tenth on an hour,
	// every tenth plus one on the hour's last microsecond.
	g.exec(t, `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, transaction_type, status, amount, currency, destination_amount,
			destination_currency, payment_method_type, created_at, updated_at)
		SELECT 'ROLL-' || $1::integer::text || '-' || i, $1::integer, $2::integer, 1, 1, 'Roll merchant', 'Roll provider', 'GCash', 'roll-' || i,
			1 + i % 2, (ARRAY[4, -2, 3, 1, -1, 4, 2])[1 + i % 7], (i * 7919 % 100000) / 100.0 + 0.01,
			CASE WHEN i % 5 = 0 THEN 'USD' ELSE 'PHP' END, 1, 'PHP', i % 3, at, now()
		FROM generate_series(1, 400) i,
			LATERAL (SELECT timestamptz '2025-03-01 00:00:00Z' + i * interval '17 minutes 13.000317 seconds' AS raw) r,
			LATERAL (SELECT CASE i % 10 WHEN 0 THEN date_trunc('hour', raw, 'UTC')
				WHEN 1 THEN date_trunc('hour', raw, 'UTC') + interval '59 minutes 59.999999 seconds' ELSE raw END AS at) a`,
		m, c)

	filters := []totalsCase{
		{"", "true"},
		{"statuses=4,-2", "status IN (4, -2)"},
		{"statuses=-2", "status = -2"},
		{"type=2", "transaction_type = 2"},
		{"currency=usd", "currency = 'USD'"},
		{"paymentMethodType=1", "payment_method_type = 1"},
		{"type=1&statuses=3,1&currency=PHP", "transaction_type = 1 AND status IN (3, 1) AND currency = 'PHP'"},
		{"minAmount=500", "amount >= 500"}, // counted from rows
	}
	ranges := [][2]string{
		{"", ""},
		{"2025-03-02T00:00:00Z", ""},
		{"", "2025-03-03T12:00:00Z"},
		{"2025-03-02T00:00:00Z", "2025-03-03T23:59:59.999999Z"},
		{"2025-03-02T00:00:00+08:00", "2025-03-04T23:59:59.999+08:00"},
		{"2025-03-01T00:00:00-12:00", "2025-03-02T23:59:59.999-12:00"},
		{"2025-03-02T00:00:00+05:30", "2025-03-03T23:59:59.999+05:30"},
		{"2025-03-01T10:17:33.123456Z", "2025-03-03T13:02:00Z"},
		{"2025-03-01T10:47:33Z", "2025-03-03T13:42:00Z"},
		{"2025-03-02T10:05:00Z", "2025-03-02T10:50:00Z"},
		{"2025-03-02T10:00:00Z", "2025-03-02T10:59:59.999999Z"},
		{"2025-03-02T00:00:00Z", "2025-03-02T05:00:00Z"},
	}
	at := func(s string) any {
		if s == "" {
			return nil
		}
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	type result struct {
		count  int
		totals map[string]string
		page   []string
	}
	cents := func(s string) int64 {
		a, err := money.Parse("total", s)
		if err != nil {
			t.Errorf("total %q: %v", s, err)
		}
		return a.CentsValue()
	}
	same := func(a, b result) bool {
		if a.count != b.count || len(a.totals) != len(b.totals) || !slices.Equal(a.page, b.page) {
			return false
		}
		for k, v := range a.totals {
			if w, ok := b.totals[k]; !ok || cents(v) != cents(w) {
				return false
			}
		}
		return true
	}
	// want reads the oracle: the rows themselves.
	want := func(t *testing.T, f totalsCase, from, to string, take, page int) result {
		t.Helper()
		r := result{totals: map[string]string{}, page: []string{}}
		cond := ` WHERE merchant_id = $1 AND ` + f.where +
			` AND ($2::timestamptz IS NULL OR created_at >= $2) AND ($3::timestamptz IS NULL OR created_at <= $3)`
		rows, err := g.pool.Query(ctx, `SELECT currency, count(*), sum(amount)::text FROM transactions`+cond+` GROUP BY currency`, m, at(from), at(to))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var cur, sum string
			var n int
			if err := rows.Scan(&cur, &n, &sum); err != nil {
				t.Fatal(err)
			}
			r.count += n
			r.totals[cur] = sum
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		rows, err = g.pool.Query(ctx, `SELECT id::text FROM transactions`+cond+` ORDER BY created_at DESC, id DESC LIMIT $4 OFFSET $5`,
			m, at(from), at(to), take, (page-1)*take)
		if err != nil {
			t.Fatal(err)
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		r.page = append(r.page, ids...)
		return r
	}
	// got asks the list, through a collab or through the merchant filter.
	got := func(t *testing.T, byCollab bool, f totalsCase, from, to string, take, page int) result {
		t.Helper()
		q := url.Values{"take": {strconv.Itoa(take)}, "page": {strconv.Itoa(page)}, "includeTotalAmounts": {"true"}}
		if f.query != "" {
			extra, _ := url.ParseQuery(f.query)
			for k, v := range extra {
				q[k] = v
			}
		}
		if from != "" {
			q.Set("from", from)
		}
		if to != "" {
			q.Set("to", to)
		}
		id := int32(0)
		if byCollab {
			id = c
		} else {
			q.Set("MerchantId", strconv.Itoa(int(m)))
		}
		l := admin.list(t, id, q.Encode())
		r := result{count: l.TotalCount, totals: l.TotalAmounts, page: ids(l)}
		if r.totals == nil {
			r.totals = map[string]string{}
		}
		return r
	}
	// check compares every filter over every range, through the collab and
	// (for the first filters) through the merchant filter, the filters in
	// parallel.
	check := func(t *testing.T, phase string) {
		t.Helper()
		t.Run(phase, func(t *testing.T) {
			for i, f := range filters {
				t.Run(strconv.Itoa(i), func(t *testing.T) {
					t.Parallel()
					ways := []bool{true}
					if i < 3 {
						ways = append(ways, false)
					}
					// A shallow page, or a deeper one that spans days.
					take, pg := 7, 2
					if i%2 == 1 {
						take, pg = 25, 4
					}
					for _, rg := range ranges {
						w := want(t, f, rg[0], rg[1], take, pg)
						for _, byCollab := range ways {
							if r := got(t, byCollab, f, rg[0], rg[1], take, pg); !same(r, w) {
								t.Errorf("%q from %q to %q (by collab %v, take %d, page %d) = %+v, want %+v",
									f.query, rg[0], rg[1], byCollab, take, pg, r, w)
							}
						}
					}
				})
			}
		})
		// The rollups plus the deltas are the rows, hour by hour and day by day.
		for _, q := range []string{`
			WITH r AS (SELECT date_trunc('hour', created_at, 'UTC') AS b, status, transaction_type, currency,
					payment_method_type, count(*) AS n, sum(amount) AS a
				FROM transactions WHERE merchant_id = $1 GROUP BY 1, 2, 3, 4, 5),
			k AS (SELECT hour AS b, status, transaction_type, currency, payment_method_type, sum(n) AS n, sum(amount) AS a
				FROM (SELECT * FROM transaction_totals_hourly WHERE merchant_id = $1
					UNION ALL SELECT * FROM transaction_totals_delta WHERE merchant_id = $1) x
				GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0)
			SELECT count(*) FROM ((TABLE r EXCEPT TABLE k) UNION ALL (TABLE k EXCEPT TABLE r)) d`, `
			WITH r AS (SELECT date_trunc('day', created_at, 'UTC') AS b, status, transaction_type, currency,
					payment_method_type, count(*) AS n, sum(amount) AS a
				FROM transactions WHERE merchant_id = $1 GROUP BY 1, 2, 3, 4, 5),
			k AS (SELECT b, status, transaction_type, currency, payment_method_type, sum(n) AS n, sum(amount) AS a
				FROM (SELECT day AS b, status, transaction_type, currency, payment_method_type, n, amount
						FROM transaction_totals_daily WHERE merchant_id = $1
					UNION ALL SELECT date_trunc('day', hour, 'UTC'), status, transaction_type, currency,
						payment_method_type, n, amount FROM transaction_totals_delta WHERE merchant_id = $1) x
				GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0)
			SELECT count(*) FROM ((TABLE r EXCEPT TABLE k) UNION ALL (TABLE k EXCEPT TABLE r)) d`} {
			if n := g.queryInt(t, q, m); n != 0 {
				t.Errorf("%s: %d keys of the rollups differ from the rows", phase, n)
			}
		}
	}
	fold := func(t *testing.T) {
		t.Helper()
		if _, err := store.FoldTotals(ctx); err != nil {
			t.Fatal(err)
		}
	}

	check(t, "unfolded")
	if n := g.queryInt(t, `SELECT count(*) FROM transaction_totals_delta WHERE merchant_id = $1`, m); n == 0 {
		t.Fatal("the inserts left no deltas")
	}
	fold(t)
	check(t, "folded")

	t.Run("concurrent status changes, inserts, deletes, folds and a rebuild", func(t *testing.T) {
		ids := pgxIDs(t, g, `SELECT id FROM transactions WHERE merchant_id = $1 ORDER BY id LIMIT 60`, m)
		pending := pgxIDs(t, g, `SELECT id FROM transactions WHERE merchant_id = $1 AND status = 3 ORDER BY id DESC LIMIT 8`, m)
		stop := make(chan struct{})
		folded := make(chan error, 1)
		go func() {
			for {
				select {
				case <-stop:
					folded <- nil
					return
				default:
				}
				if _, err := store.FoldTotals(ctx); err != nil {
					folded <- err
					return
				}
			}
		}()
		var wg sync.WaitGroup
		var changed, cancelled atomic.Int64
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 7))
				for range 40 {
					id := ids[r.IntN(len(ids))]
					var seen int16
					err := g.pool.QueryRow(ctx, `SELECT status FROM transactions WHERE id = $1`, id).Scan(&seen)
					if errors.Is(err, pgx.ErrNoRows) {
						continue // deleted meanwhile
					}
					if err != nil {
						t.Error(err)
						return
					}
					to := []int16{4, -2, 3, 1, -1}[r.IntN(5)]
					tag, err := g.pool.Exec(ctx, `UPDATE transactions SET status = $3, updated_at = now() WHERE id = $1 AND status = $2`, id, seen, to)
					if err != nil {
						t.Error(err)
						return
					}
					changed.Add(tag.RowsAffected())
				}
			}()
		}
		// Two operators cancel each pending transaction at once: one wins.
		for _, id := range pending {
			for range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					status, raw := admin.do(t, http.MethodPost, "/api/v1/transactions/"+strconv.FormatInt(id, 10)+"/cancel?transactionStatus=3", nil)
					switch status {
					case http.StatusOK:
						cancelled.Add(1)
					case http.StatusConflict:
					default:
						t.Errorf("cancel %d: %d %s", id, status, raw)
					}
				}()
			}
		}
		// A rebuild meanwhile: the deltas committed after its snapshot stay.
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := store.BuildTotals(ctx); err != nil {
				t.Error(err)
			}
		}()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				if _, err := g.pool.Exec(ctx, `
					INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
						provider_name, pay_type_name, nonce, transaction_type, status, amount, currency, destination_amount,
						destination_currency, created_at, updated_at)
					VALUES ($3, $1, $2, 1, 1, 'Roll merchant', 'Roll provider', 'GCash', $3, 1, 3, 12.34, 'PHP', 12.34, 'PHP',
						timestamptz '2025-03-02 10:30:00Z' + $4 * interval '1 minute', now())`,
					m, c, "ROLL-NEW-"+strconv.Itoa(i), i); err != nil {
					t.Error(err)
					return
				}
			}
			if _, err := g.pool.Exec(ctx, `DELETE FROM transactions WHERE merchant_id = $1 AND id % 17 = 0 AND id <> ALL($2)`, m, pending); err != nil {
				t.Error(err)
			}
		}()
		wg.Wait()
		close(stop)
		if err := <-folded; err != nil {
			t.Fatal(err)
		}
		if changed.Load() == 0 || cancelled.Load() != int64(len(pending)) {
			t.Errorf("%d status changes, %d cancels won (want %d)", changed.Load(), cancelled.Load(), len(pending))
		}
		check(t, "after concurrent changes")
	})

	t.Run("whole days and hours come from the rollups, partial hours from rows", func(t *testing.T) {
		fold(t)
		count := func(from, to string) int {
			t.Helper()
			return got(t, true, filters[0], from, to, 7, 1).count
		}
		tamper := func(table, col, bucket string) {
			t.Helper()
			g.exec(t, `UPDATE `+table+` SET n = n + 1000 WHERE ctid = (SELECT ctid FROM `+table+`
				WHERE merchant_id = $1 AND `+col+` = $2::timestamptz LIMIT 1)`, m, bucket)
		}
		days := [2]string{"2025-03-02T00:00:00Z", "2025-03-03T23:59:59.999Z"}
		inner := [2]string{"2025-03-02T05:30:00Z", "2025-03-02T08:15:00Z"} // head 05:30–06:00, tail 08:00–08:15 from rows
		outer := [2]string{"2025-03-02T05:10:00Z", "2025-03-02T08:50:00Z"} // 05:00–09:00 less 05:00–05:10 and 08:50–09:00
		before := map[[2]string]int{days: count(days[0], days[1]), inner: count(inner[0], inner[1]), outer: count(outer[0], outer[1])}
		tamper("transaction_totals_daily", "day", "2025-03-03T00:00:00Z")
		tamper("transaction_totals_hourly", "hour", "2025-03-02T05:00:00Z")
		tamper("transaction_totals_hourly", "hour", "2025-03-02T08:00:00Z")
		if got := count(days[0], days[1]); got != before[days]+1000 {
			t.Errorf("whole days: %d after tampering with a day, want %d", got, before[days]+1000)
		}
		if got := count(inner[0], inner[1]); got != before[inner] {
			t.Errorf("partial hours: %d after tampering with their hours, want %d (rows)", got, before[inner])
		}
		if got := count(outer[0], outer[1]); got != before[outer]+2000 {
			t.Errorf("hours less their outside parts: %d after tampering with them, want %d", got, before[outer]+2000)
		}
		// Not built: rows are counted. The next fold builds them again.
		g.exec(t, `UPDATE transaction_totals_state SET built_at = NULL`)
		if got := count(days[0], days[1]); got != before[days] {
			t.Errorf("unbuilt rollups: %d, want %d from rows", got, before[days])
		}
		fold(t)
		if n := g.queryInt(t, `SELECT count(*) FROM transaction_totals_state WHERE built_at IS NOT NULL`); n != 1 {
			t.Errorf("built after a fold: %d", n)
		}
		if got := count(outer[0], outer[1]); got != before[outer] {
			t.Errorf("rebuilt by a fold: %d, want %d", got, before[outer])
		}
		tamper("transaction_totals_daily", "day", "2025-03-03T00:00:00Z")
		if n, err := store.BuildTotals(ctx); err != nil || n != int64(g.queryInt(t, `SELECT count(*) FROM transactions`)) {
			t.Errorf("BuildTotals = %d, %v", n, err)
		}
		check(t, "repaired")
	})

	t.Run("a running fold empties the deltas", func(t *testing.T) {
		g.exec(t, `UPDATE transactions SET status = 4 WHERE merchant_id = $1 AND status = 3`, m)
		if g.queryInt(t, `SELECT count(*) FROM transaction_totals_delta WHERE merchant_id = $1`, m) == 0 {
			t.Fatal("the status changes left no deltas")
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		var warnings strings.Builder
		go func() {
			done <- store.RunTotals(runCtx, 10*time.Millisecond, slog.New(slog.NewTextHandler(&warnings, nil)))
		}()
		deadline := time.Now().Add(10 * time.Second)
		for g.queryInt(t, `SELECT count(*) FROM transaction_totals_delta WHERE merchant_id = $1`, m) != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		if err := <-done; err != nil || warnings.Len() != 0 {
			t.Errorf("RunTotals: %v %s", err, warnings.String())
		}
		if n := g.queryInt(t, `SELECT count(*) FROM transaction_totals_delta WHERE merchant_id = $1`, m); n != 0 {
			t.Errorf("%d deltas left after 10 s of folding", n)
		}
		check(t, "folded by RunTotals")
	})
}

func pgxIDs(t *testing.T, g *testGateway, sql string, args ...any) []int64 {
	t.Helper()
	rows, err := g.pool.Query(t.Context(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil || len(out) == 0 {
		t.Fatalf("%s: %v %v", sql, out, err)
	}
	return out
}
