package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// The fraud tests run the gateway with the sandbox (newPayEnv) and the
// fraud-detection job every 200ms. One part of the traffic goes through the
// real payment API (a client paying fast, a spike after small payments,
// failures then a success, all from the test's one address and user agent);
// the rest is written straight to the table, because the payment API records
// the caller's address (always 127.0.0.1 here) and the current time, and the
// IP, user agent and window cases need other addresses and chosen times.

// fraudThresholds are the test's thresholds: small, so that a few payments
// trip each rule.
const fraudThresholds = `{"velocityMaxPayments":5,"velocityWindowMinutes":10,"amountSpikeFactor":3,"amountSpikeMinHistory":3,
	"failuresBeforeSuccess":3,"failuresWindowMinutes":30,"sharedIdentityMinClients":3,"sharedIdentityWindowMinutes":30}`

type fraudTxJSON struct {
	ID                         string `json:"id"`
	Amount                     string `json:"amount"`
	Currency                   string `json:"currency"`
	TransactionType            int    `json:"transactionType"`
	CreatedUtc                 string `json:"createdUtc"`
	ProviderName               string `json:"providerName"`
	MerchantName               string `json:"merchantName"`
	MerchantID                 int32  `json:"merchantId"`
	CallbackDeliveryStatus     string `json:"callbackDeliveryStatus"`
	IsCallbacksSendingCanceled bool   `json:"isCallbacksSendingCanceled"`
}

type fraudJSON struct {
	ID                         string        `json:"id"`
	ReferenceID                string        `json:"referenceId"`
	ClientID                   string        `json:"clientId"`
	MerchantClientID           string        `json:"merchantClientId"`
	Level                      int           `json:"level"`
	DetectedAtUtc              string        `json:"detectedAtUtc"`
	UpdatedAtUtc               string        `json:"updatedAtUtc"`
	Reason                     string        `json:"reason"`
	ReviewStatus               int           `json:"reviewStatus"`
	ReviewCompletedAtUtc       *string       `json:"reviewCompletedAtUtc"`
	ReviewedBy                 string        `json:"reviewedBy"`
	Notes                      string        `json:"notes"`
	IsCallbacksSendingCanceled bool          `json:"isCallbacksSendingCanceled"`
	TransactionsDtos           []fraudTxJSON `json:"transactionsDtos"`
	Rule                       string        `json:"rule"`
	MerchantID                 int32         `json:"merchantId"`
	TransactionCount           int           `json:"transactionCount"`
}

type fraudListJSON struct {
	ClientFrauds []fraudJSON `json:"clientFrauds"`
	TotalCount   int         `json:"totalCount,string"`
	CurrentPage  int         `json:"currentPage"`
	TotalPages   int         `json:"totalPages"`
}

// fraudSeed is a transaction written straight to the table.
type fraudSeed struct {
	mcid, ip, ua string
	status       int
	amount       string
	at           time.Time
}

func (e *payEnv) seedFraudTx(t *testing.T, merchantID, collabID int32, s fraudSeed) int64 {
	t.Helper()
	if s.amount == "" {
		s.amount = "10.00"
	}
	if s.status == 0 {
		s.status = 4
	}
	var id int64
	err := e.pool.QueryRow(t.Context(), `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, amount, currency,
			destination_amount, destination_currency, payment_ip_address, user_agent, created_at, updated_at)
		VALUES ('FS-' || gen_random_uuid(), $1, $2, 1, 1, 'Seed merchant', 'Seed provider', 'GCash', 'n-' || gen_random_uuid(),
			$3, 1, $4, $5::numeric, 'PHP', $5::numeric, 'PHP', $6, $7, $8, $8)
		RETURNING id`, merchantID, collabID, s.mcid, s.status, s.amount, s.ip, s.ua, s.at).Scan(&id)
	if err != nil {
		t.Fatalf("seed %+v: %v", s, err)
	}
	return id
}

// rescanFrauds forgets the watermark (and, when forget is true, every flag
// and the clients' history) and waits for the job to scan the last day
// again, up to now.
func (e *payEnv) rescanFrauds(t *testing.T, forget bool) {
	t.Helper()
	ctx := t.Context()
	tx, err := e.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback(context.Background()) }()
	// The job holds this row while it runs: the reset waits for a run in
	// progress.
	stmts := []string{`SELECT 1 FROM fraud_detection_state FOR UPDATE`}
	if forget {
		stmts = append(stmts, `DELETE FROM client_frauds`, `DELETE FROM fraud_client_stats`)
	}
	stmts = append(stmts, `UPDATE fraud_detection_state SET scanned_until = NULL, last_run_at = NULL`)
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	resetAt := time.Now()
	deadline := resetAt.Add(20 * time.Second)
	for e.queryInt(t, `SELECT count(*) FROM fraud_detection_state WHERE scanned_until >= $1`, resetAt) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the fraud-detection job did not run within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// flagKey describes a flag as the tests expect it.
type flagKey struct {
	rule, client string
	level, txs   int
}

func (e *payEnv) flagsOf(t *testing.T, merchantID int32) []flagKey {
	t.Helper()
	rows, err := e.pool.Query(t.Context(), `SELECT rule, client_id, level, transaction_count FROM client_frauds
		WHERE merchant_id = $1 ORDER BY rule, client_id`, merchantID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []flagKey
	for rows.Next() {
		var k flagKey
		if err := rows.Scan(&k.rule, &k.client, &k.level, &k.txs); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	return out
}

func (c *caller) frauds(t *testing.T, query string) fraudListJSON {
	t.Helper()
	var out fraudListJSON
	c.must(t, http.StatusOK, http.MethodGet, "/api/v1/frauds?"+query, nil, &out)
	return out
}

// fraudCaller is a user with exactly perms, of role and merchants.
func (e *payEnv) fraudCaller(t *testing.T, role string, perms []string, merchantIDs ...int32) *caller {
	t.Helper()
	c := e.user(t, role, merchantIDs...)
	c.token = e.issuer.Token(t, authztest.User{ID: c.id, Username: c.name, Roles: []string{role}, Permissions: perms, MerchantIDs: merchantIDs})
	return c
}

// awayFromWindowEdge waits until the next 10-minute window is at least 30s
// away, so that payments made now fall in one window of every rule.
func awayFromWindowEdge() {
	now := time.Now().UTC()
	next := now.Truncate(10 * time.Minute).Add(10 * time.Minute)
	if next.Sub(now) < 30*time.Second {
		time.Sleep(next.Sub(now) + time.Second)
	}
}

func TestFraudDetectionAndReview(t *testing.T) {
	e := newPayEnvWith(t, payEnvOptions{env: map[string]string{
		"PAYGATE_FRAUD_INTERVAL": "200ms", "PAYGATE_FRAUD_SETTLE": "0s", "PAYGATE_FRAUD_THRESHOLDS": fraudThresholds,
	}})
	ctx := t.Context()

	// Through the payment API, merchant P (the environment's): client
	// velo-1 pays 6 times, spike-1 3 times 10.00 then 100.00, fail-1 fails 3
	// times then succeeds.
	awayFromWindowEdge()
	pay := func(client, nonce, amount string, tags ...string) string {
		body := e.payload(nonce, amount, 1, "GCASH", tags...)
		body["merchantData"].(map[string]any)["clientId"] = client
		return e.initialize(t, http.StatusOK, body).ID
	}
	var final []string
	for i := range 6 {
		final = append(final, pay("velo-1", fmt.Sprintf("velo-%d", i), "100.00"))
	}
	for i := range 3 {
		final = append(final, pay("spike-1", fmt.Sprintf("spike-%d", i), "10.00"))
	}
	final = append(final, pay("spike-1", "spike-big", "100.00"))
	var failIDs []string
	for i := range 3 {
		failIDs = append(failIDs, pay("fail-1", fmt.Sprintf("fail-%d", i), "10.00", "sandbox:outcome=failed"))
	}
	failOK := pay("fail-1", "fail-ok", "10.00")
	for _, id := range append(slices.Clone(final), failOK) {
		e.waitStatus(t, id, 4)
	}
	for _, id := range failIDs {
		e.waitStatus(t, id, -2)
	}
	var payIP, payUA string
	if err := e.pool.QueryRow(ctx, `SELECT payment_ip_address, user_agent FROM transactions WHERE id = $1`, failOK).Scan(&payIP, &payUA); err != nil {
		t.Fatal(err)
	}

	// Written straight: merchants A and B, two hours ago, aligned to the
	// hour so that every case lies in one window of its rule.
	admin := e.admin
	mA, mB := e.newMerchant(t), e.newMerchant(t)
	cA, cB := e.testGateway.initialize(t, admin, mA, 1), e.testGateway.initialize(t, admin, mB, 1)
	base := time.Now().UTC().Truncate(time.Hour).Add(-2 * time.Hour)
	at := func(min, sec int) time.Time {
		return base.Add(time.Duration(min)*time.Minute + time.Duration(sec)*time.Second)
	}
	seedA := func(s fraudSeed) int64 { return e.seedFraudTx(t, mA, cA, s) }
	// Velocity: v-hi pays 15 times in 5 minutes (from 15 addresses);
	// v-lo 4 times.
	for i := range 15 {
		seedA(fraudSeed{mcid: "v-hi", ip: fmt.Sprintf("10.1.0.%d", i), at: at(1, i*20)})
	}
	for i := range 4 {
		seedA(fraudSeed{mcid: "v-lo", at: at(1, i*20)})
	}
	// Velocity by IP: 10.9.9.9 pays 6 times for two clients; 10.9.9.8 4
	// times.
	for i := range 6 {
		seedA(fraudSeed{mcid: "ip-c" + strconv.Itoa(i%2), ip: "10.9.9.9", at: at(2, i*10)})
	}
	for i := range 4 {
		seedA(fraudSeed{mcid: "ip-d" + strconv.Itoa(i%2), ip: "10.9.9.8", at: at(2, i*10)})
	}
	// Shared identity: ua-shared is used by 6 clients; ua-two by 2.
	for i := range 6 {
		seedA(fraudSeed{mcid: "sh-" + strconv.Itoa(i), ua: "ua-shared", at: at(3, i)})
	}
	for i := range 2 {
		seedA(fraudSeed{mcid: "sh2-" + strconv.Itoa(i), ua: "ua-two", at: at(3, i)})
	}
	// Failures then success: f-hi fails 4 times then succeeds within 30
	// minutes (never 5 payments in 10 minutes); f-lo only fails; f-order
	// succeeds first, then fails.
	var fHi []int64
	for i := range 4 {
		fHi = append(fHi, seedA(fraudSeed{mcid: "f-hi", status: -2, at: at(1+5*i, 0)}))
	}
	fHi = append(fHi, seedA(fraudSeed{mcid: "f-hi", status: 4, at: at(21, 0)}))
	for i := range 4 {
		seedA(fraudSeed{mcid: "f-lo", status: -4, at: at(1+5*i, 0)})
	}
	seedA(fraudSeed{mcid: "f-order", status: 4, at: at(1, 0)})
	for i := range 3 {
		seedA(fraudSeed{mcid: "f-order", status: -2, at: at(6+5*i, 0)})
	}
	// Amount spike: s-hi pays 10.00 4 times then 50.00 (5 times the
	// average); s-lo then 25.00 (2.5 times); s-few pays 10.00 twice then
	// 100.00 (too little history).
	for i := range 4 {
		seedA(fraudSeed{mcid: "s-hi", at: at(1+i, 0)})
		seedA(fraudSeed{mcid: "s-lo", at: at(1+i, 0)})
	}
	spike := seedA(fraudSeed{mcid: "s-hi", amount: "50.00", at: at(20, 0)})
	seedA(fraudSeed{mcid: "s-lo", amount: "25.00", at: at(20, 0)})
	for i := range 2 {
		seedA(fraudSeed{mcid: "s-few", at: at(1+i, 0)})
	}
	seedA(fraudSeed{mcid: "s-few", amount: "100.00", at: at(20, 0)})
	// Merchant B: one client paying 5 times.
	for i := range 5 {
		e.seedFraudTx(t, mB, cB, fraudSeed{mcid: "b-v", at: at(1, i)})
	}

	// Runs before the seeding may have seen part of it: start afresh.
	e.rescanFrauds(t, true)

	wantP := []flagKey{
		{"amount-spike", "spike-1", 4, 1},
		{"failures-then-success", "fail-1", 1, 4},
		{"shared-identity", payIP, 1, 14},
		{"shared-identity", payUA, 1, 14},
		{"velocity", payIP, 3, 14},
		{"velocity", "velo-1", 1, 6},
	}
	sort.Slice(wantP, func(i, j int) bool {
		return wantP[i].rule < wantP[j].rule || wantP[i].rule == wantP[j].rule && wantP[i].client < wantP[j].client
	})
	wantA := []flagKey{
		{"amount-spike", "s-hi", 2, 1},
		{"failures-then-success", "f-hi", 1, 5},
		{"shared-identity", "ua-shared", 3, 6},
		{"velocity", "10.9.9.9", 1, 6},
		{"velocity", "v-hi", 4, 15},
	}
	wantB := []flagKey{{"velocity", "b-v", 1, 5}}
	check := func(when string) {
		t.Helper()
		for _, c := range []struct {
			m    int32
			want []flagKey
		}{{e.merchantID, wantP}, {mA, wantA}, {mB, wantB}} {
			if got := e.flagsOf(t, c.m); !slices.Equal(got, c.want) {
				t.Errorf("%s: flags of merchant %d:\n got %v\nwant %v", when, c.m, got, c.want)
			}
		}
	}
	check("first scan")
	var ftHi []int64
	rows, err := e.pool.Query(ctx, `SELECT ft.transaction_id FROM fraud_transactions ft JOIN client_frauds c ON c.id = ft.fraud_id
		WHERE c.merchant_id = $1 AND c.rule = 'failures-then-success' ORDER BY 1`, mA)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		ftHi = append(ftHi, id)
	}
	rows.Close()
	if !slices.Equal(ftHi, fHi) {
		t.Errorf("transactions of f-hi's fraud: %v, want %v", ftHi, fHi)
	}
	snapshot := func() string {
		var s string
		if err := e.pool.QueryRow(ctx, `SELECT string_agg(format('%s/%s/%s/%s/%s', id, level, observed, transaction_count,
			(SELECT count(*) FROM fraud_transactions ft WHERE ft.fraud_id = c.id)), ',' ORDER BY id) FROM client_frauds c`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()
	// A rescan over the same transactions (watermark forgotten, history
	// kept) duplicates and changes nothing.
	e.rescanFrauds(t, false)
	check("second scan")
	if after := snapshot(); after != before {
		t.Errorf("a second scan changed the flags:\nbefore %s\nafter  %s", before, after)
	}

	// Reasons say which rule, the numbers and the window.
	var reasons []string
	rows, err = e.pool.Query(ctx, `SELECT reason FROM client_frauds WHERE merchant_id = $1 ORDER BY rule, client_id`, mA)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r string
		_ = rows.Scan(&r)
		reasons = append(reasons, r)
	}
	rows.Close()
	window := base.Format("2006-01-02 15:04")
	for i, want := range []string{
		"Amount spike: a payment of 50.00 PHP from merchant client id s-hi is 5.00 times the client's average of 10.00 PHP over 4 earlier payments; the threshold is 3 times, after at least 3 payments.",
		"Failures then success: 4 failed payments, then a successful one, from merchant client id f-hi within 30 minutes (the window from " + window + " UTC); the threshold is 3 failures.",
		"Shared identity: user agent ua-shared was used by 6 merchant client ids within 30 minutes (the window from " + window + " UTC); the threshold is 3 client ids.",
		"Velocity: 6 payments from IP address 10.9.9.9 within 10 minutes (the window from " + window + " UTC); the threshold is 5 payments.",
		"Velocity: 15 payments from merchant client id v-hi within 10 minutes (the window from " + window + " UTC); the threshold is 5 payments.",
	} {
		if i >= len(reasons) || reasons[i] != want {
			t.Errorf("reason %d: %q, want %q", i, reasons, want)
			break
		}
	}

	t.Run("list", func(t *testing.T) {
		support := e.user(t, access.RoleSupport)
		all := support.frauds(t, "take=100")
		if all.TotalCount != len(wantP)+len(wantA)+len(wantB) || len(all.ClientFrauds) != all.TotalCount || all.CurrentPage != 1 || all.TotalPages != 1 {
			t.Fatalf("all frauds: %d of %d, page %d of %d", len(all.ClientFrauds), all.TotalCount, all.CurrentPage, all.TotalPages)
		}
		// Paging walks the same order: detected newest first, then id.
		var paged []string
		for page := 1; ; page++ {
			l := support.frauds(t, "take=4&page="+strconv.Itoa(page))
			if l.CurrentPage != page || l.TotalPages != (all.TotalCount+3)/4 {
				t.Fatalf("page %d: %+v", page, l)
			}
			for _, f := range l.ClientFrauds {
				paged = append(paged, f.ID)
			}
			if len(l.ClientFrauds) == 0 {
				break
			}
		}
		var ids []string
		for _, f := range all.ClientFrauds {
			ids = append(ids, f.ID)
		}
		if !slices.Equal(paged, ids) {
			t.Errorf("paged %v, want %v", paged, ids)
		}
		if def := support.frauds(t, ""); len(def.ClientFrauds) != 10 || def.TotalPages != 2 {
			t.Errorf("default page: %d frauds of %d pages, want 10 of 2", len(def.ClientFrauds), def.TotalPages)
		}

		// Filters.
		one := func(query string, wantRule, wantClient string) fraudJSON {
			t.Helper()
			l := support.frauds(t, query)
			if l.TotalCount != 1 || len(l.ClientFrauds) != 1 || l.ClientFrauds[0].Rule != wantRule || l.ClientFrauds[0].ClientID != wantClient {
				t.Fatalf("%s: %+v, want one %s fraud of %s", query, l, wantRule, wantClient)
			}
			return l.ClientFrauds[0]
		}
		fh := one("clientId=f-hi", "failures-then-success", "f-hi")
		if fh.MerchantClientID != "f-hi" || fh.MerchantID != mA || fh.Level != 1 || fh.ReviewStatus != 0 || fh.ReviewCompletedAtUtc != nil ||
			fh.TransactionCount != 5 || len(fh.TransactionsDtos) != 5 || !strings.HasPrefix(fh.ReferenceID, "FRD-") {
			t.Errorf("f-hi fraud: %+v", fh)
		}
		tx0 := fh.TransactionsDtos[0]
		if tx0.ID != strconv.FormatInt(fHi[0], 10) || tx0.Amount != "10.00" || tx0.Currency != "PHP" || tx0.TransactionType != 1 ||
			tx0.MerchantID != mA || tx0.MerchantName != "Seed merchant" || tx0.ProviderName != "Seed provider" ||
			tx0.CallbackDeliveryStatus != "0/0" || tx0.CreatedUtc == "" {
			t.Errorf("f-hi's first transaction: %+v", tx0)
		}
		one("merchantClientId=velo-1", "velocity", "velo-1")
		one("transactionId="+strconv.FormatInt(spike, 10), "amount-spike", "s-hi")
		one("referenceId="+url.QueryEscape(fh.ReferenceID), "failures-then-success", "f-hi")
		one("merchantId="+strconv.Itoa(int(mB)), "velocity", "b-v")
		one("merchantId="+strconv.Itoa(int(mA))+"&clientId=v-hi", "velocity", "v-hi")
		if l := support.frauds(t, "merchantId="+strconv.Itoa(int(mA))); l.TotalCount != len(wantA) {
			t.Errorf("merchant A: %d frauds, want %d", l.TotalCount, len(wantA))
		}
		if l := support.frauds(t, "status=1"); l.TotalCount != 0 {
			t.Errorf("confirmed before any review: %d", l.TotalCount)
		}
		now := time.Now().UTC()
		in := "startDate=" + now.Add(-time.Hour).Format(time.RFC3339) + "&endDate=" + now.Add(time.Hour).Format(time.RFC3339Nano)
		if l := support.frauds(t, in); l.TotalCount != all.TotalCount {
			t.Errorf("detected within the last hour: %d, want %d", l.TotalCount, all.TotalCount)
		}
		if l := support.frauds(t, "startDate="+now.Add(time.Hour).Format("2006-01-02T15:04:05")); l.TotalCount != 0 {
			t.Errorf("detected after an hour from now: %d", l.TotalCount)
		}

		// Bad input names the field.
		for q, field := range map[string]string{
			"status=3": "status", "take=0": "take", "take=101": "take", "page=0": "page", "startDate=yesterday": "startDate",
			"endDate=2025-13-01": "endDate", "transactionId=0": "transactionId", "merchantId=-1": "merchantId",
			"startDate=2025-02-01T00:00:00Z&endDate=2025-01-01T00:00:00Z": "startDate", "page=1001": "page",
		} {
			var e struct{ Code, Message string }
			support.must(t, http.StatusBadRequest, http.MethodGet, "/api/v1/frauds?"+q, nil, &e)
			if msg := e.Message; !strings.Contains(msg, field) {
				t.Errorf("%s: %q does not name %s", q, msg, field)
			}
		}

		// Permissions and scope.
		e.user(t, access.RoleMerchant, mA).must(t, http.StatusForbidden, http.MethodGet, "/api/v1/frauds", nil, nil)
		ma := e.user(t, access.RoleMerchantAdmin, mA)
		own := ma.frauds(t, "take=100")
		if own.TotalCount != len(wantA) {
			t.Errorf("merchant A's admin sees %d frauds, want %d", own.TotalCount, len(wantA))
		}
		for _, f := range own.ClientFrauds {
			if f.MerchantID != mA {
				t.Errorf("merchant A's admin sees fraud %s of merchant %d", f.ID, f.MerchantID)
			}
		}
		if l := ma.frauds(t, "merchantId="+strconv.Itoa(int(mB))); l.TotalCount != 0 || len(l.ClientFrauds) != 0 {
			t.Errorf("merchant A's admin filtering merchant B: %+v", l)
		}
		if l := ma.frauds(t, "clientId=b-v"); l.TotalCount != 0 {
			t.Errorf("merchant A's admin finds merchant B's client: %+v", l)
		}
	})

	t.Run("review", func(t *testing.T) {
		support := e.user(t, access.RoleSupport)
		byClient := func(client string) fraudJSON {
			return support.frauds(t, "clientId="+url.QueryEscape(client)).ClientFrauds[0]
		}
		fh, bv, vhi := byClient("f-hi"), byClient("b-v"), byClient("v-hi")
		path := func(f fraudJSON, status int) string {
			return "/api/v1/frauds/" + f.ID + "/status/" + strconv.Itoa(status)
		}

		editor := e.fraudCaller(t, access.RoleMerchantAdmin, []string{access.PermViewFrauds, access.PermEditFrauds, access.PermCancelCallbacks}, mA)
		// Support may look but not review.
		support.refused(t, http.StatusForbidden, 0, http.MethodPost, path(fh, 1), map[string]any{"notes": "x"})
		// Another merchant's fraud, or none, is not found.
		editor.refused(t, http.StatusNotFound, 0, http.MethodPost, path(bv, 1), map[string]any{"notes": "mine?"})
		editor.refused(t, http.StatusNotFound, 0, http.MethodPost, "/api/v1/frauds/999999999/status/1", map[string]any{"notes": "x"})
		// Bad reviews name the field and write nothing.
		for _, c := range []struct {
			status int
			body   map[string]any
			field  string
		}{
			{2, map[string]any{"notes": "  "}, "notes"},
			{2, map[string]any{}, "notes"},
			{3, map[string]any{"notes": "x"}, "status"},
			{0, map[string]any{"notes": ""}, "status or the notes"},
			{1, map[string]any{"notes": strings.Repeat("n", 2001)}, "notes"},
		} {
			if msg := editor.refused(t, http.StatusBadRequest, 0, http.MethodPost, path(fh, c.status), c.body); !strings.Contains(msg, c.field) {
				t.Errorf("status %d %v: %q does not name %s", c.status, c.body, msg, c.field)
			}
		}
		// Stopping callbacks needs Cancel Callbacks.
		noCancel := e.fraudCaller(t, access.RoleMerchantAdmin, []string{access.PermViewFrauds, access.PermEditFrauds}, mA)
		noCancel.refused(t, http.StatusForbidden, 0, http.MethodPost, path(fh, 1), map[string]any{"notes": "x", "isCallbacksSendingCanceled": true})

		// Confirm v-hi with a note.
		var got fraudJSON
		editor.must(t, http.StatusOK, http.MethodPost, path(vhi, 1), map[string]any{"notes": "Card testing."}, &got)
		if got.ReviewStatus != 1 || got.Notes != "Card testing." || got.ReviewedBy != editor.name || got.ReviewCompletedAtUtc == nil ||
			got.IsCallbacksSendingCanceled || got.ID != vhi.ID || len(got.TransactionsDtos) != 15 {
			t.Errorf("confirmed: %+v", got)
		}
		entries, _ := editor.expectChanges(t, 1)
		if en := entries[0]; en.ActionType != "Status" || en.MerchantID != mA || !strings.Contains(en.Message, vhi.ReferenceID) ||
			!strings.Contains(en.Message, "Confirmed, was Not Reviewed") || !strings.Contains(en.NewValue, `"reviewStatus": 1`) {
			t.Errorf("activity entry: %+v", en)
		}
		// The same save again changes nothing and is refused.
		editor.refused(t, http.StatusBadRequest, 0, http.MethodPost, path(vhi, 1), map[string]any{"notes": "Card testing."})
		// A changed note alone is a review.
		editor.must(t, http.StatusOK, http.MethodPost, path(vhi, 1), map[string]any{"notes": "Card testing, 15 cards."}, &got)
		editor.expectChanges(t, 1)

		// Deny f-hi and stop its transactions' callbacks.
		editor.must(t, http.StatusOK, http.MethodPost, path(fh, 2), map[string]any{"notes": "A known customer.", "isCallbacksSendingCanceled": true}, &got)
		if got.ReviewStatus != 2 || !got.IsCallbacksSendingCanceled {
			t.Errorf("denied: %+v", got)
		}
		for _, x := range got.TransactionsDtos {
			if !x.IsCallbacksSendingCanceled {
				t.Errorf("transaction %s of the denied fraud still sends callbacks", x.ID)
			}
		}
		entries, _ = editor.expectChanges(t, 1)
		if !strings.Contains(entries[0].Message, "Callback sending cancelled for 5 transactions") {
			t.Errorf("activity entry: %+v", entries[0])
		}
		if n := e.queryInt(t, `SELECT count(*) FROM transactions WHERE id = ANY($1) AND callbacks_canceled`, fHi); n != 5 {
			t.Errorf("%d of f-hi's transactions stopped, want 5", n)
		}
		if n := e.queryInt(t, `SELECT count(*) FROM transaction_logs WHERE transaction_id = ANY($1) AND source_context = 'fraud.Review'`, fHi); n != 5 {
			t.Errorf("%d journal entries of the review, want 5", n)
		}
		tx := e.get(t, e.admin, strconv.FormatInt(fHi[0], 10))
		var full map[string]any
		e.admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/transactions/"+tx.ID, nil, &full)
		if full["isCallbackSendingCanceled"] != true {
			t.Errorf("transaction %s: isCallbackSendingCanceled %v", tx.ID, full["isCallbackSendingCanceled"])
		}
		// The list shows the reviews; the status filter finds them.
		if l := support.frauds(t, "status=2"); l.TotalCount != 1 || l.ClientFrauds[0].ID != fh.ID || l.ClientFrauds[0].Notes != "A known customer." {
			t.Errorf("denied frauds: %+v", l)
		}
		if l := support.frauds(t, "status=1"); l.TotalCount != 1 || l.ClientFrauds[0].ID != vhi.ID {
			t.Errorf("confirmed frauds: %+v", l)
		}
		// Back to Not Reviewed is allowed.
		editor.must(t, http.StatusOK, http.MethodPost, path(vhi, 0), map[string]any{"notes": "Card testing, 15 cards."}, &got)
		if got.ReviewStatus != 0 {
			t.Errorf("back to not reviewed: %+v", got)
		}
		editor.expectChanges(t, 1)
		// A rescan keeps the reviews.
		e.rescanFrauds(t, false)
		if l := support.frauds(t, "status=2"); l.TotalCount != 1 || l.ClientFrauds[0].ID != fh.ID {
			t.Errorf("denied frauds after a rescan: %+v", l)
		}
	})
}
