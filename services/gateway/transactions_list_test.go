package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/authz"
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
	admin := g.user(t, authz.RoleAdmin)
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
			"type=3", "page=-1", "from=2025-02-03&to=2025-02-01", "minAmount=1.234", "paymentMethodType=7"} {
			var e struct{ Code, Message string }
			admin.must(t, http.StatusBadRequest, http.MethodGet, "/api/v1/collabs/0/transactions/advanced?"+q, nil, &e)
			if e.Code != "invalid" || !strings.Contains(e.Message, "filters") {
				t.Errorf("%s: %+v", q, e)
			}
		}
	})

	t.Run("merchant scope", func(t *testing.T) {
		t.Parallel()
		ua := g.user(t, authz.RoleMerchant, ma)
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
		if got := g.user(t, authz.RoleMerchant, mb).list(t, 0, window); !slices.Equal(ids(got), []string{x5}) {
			t.Errorf("merchant B: %v", ids(got))
		}
		g.user(t, authz.RoleMerchant).must(t, http.StatusOK, http.MethodGet, "/api/v1/collabs/0/transactions/advanced", nil, nil)
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
	u := g.httpURL + "/api/v1/transactions/stream"
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
		e.user(t, authz.RoleMerchantAdmin, 1).must(t, http.StatusNotFound, http.MethodPost, "/api/v1/transactions/"+id+"/cancel?transactionStatus=-1", nil, nil)
		e.user(t, authz.RoleMerchant, e.merchantID).must(t, http.StatusForbidden, http.MethodPost, "/api/v1/transactions/"+id+"/cancel?transactionStatus=-1", nil, nil)
	})

	t.Run("callbacks cancel with the status seen; stale is 409", func(t *testing.T) {
		e.admin.must(t, http.StatusConflict, http.MethodPost, "/api/v1/transactions/"+success+"/callbacks/cancel?transactionStatus=3", nil, nil)
		var got struct {
			TransactionStatus         int  `json:"transactionStatus"`
			IsCallbackSendingCanceled bool `json:"isCallbackSendingCanceled"`
		}
		e.user(t, authz.RoleMerchantAdmin, e.merchantID).must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+success+"/callbacks/cancel?transactionStatus=4", nil, &got)
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
		if other := search(e.user(t, authz.RoleMerchantSupport, 1), map[string]any{"searchTerm": nonce}); other.TotalCount != 0 {
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
		mine := e.testGateway.stream(t, e.user(t, authz.RoleMerchant, e.merchantID), true)
		admin := e.testGateway.stream(t, e.admin, false)
		others := e.testGateway.stream(t, e.user(t, authz.RoleMerchant, fenceMerchantID), true)
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
