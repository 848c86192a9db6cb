package main

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/bus"
)

// Endpoint health (docs/contracts-callbacks.md, "Endpoint health").

type healthJSON struct {
	CallbackID          string   `json:"callbackId"`
	Attempts            string   `json:"attempts"`
	Successes           string   `json:"successes"`
	SuccessRate         *float64 `json:"successRate"`
	P95LatencyMs        *int32   `json:"p95LatencyMs"`
	BreakerState        string   `json:"breakerState"`
	ConsecutiveFailures int32    `json:"consecutiveFailures"`
	RetryUtc            string   `json:"retryUtc"`
	DisabledReason      *string  `json:"disabledReason"`
	DisabledUtc         string   `json:"disabledUtc"`
}

func (s *service) health(t *testing.T, c caller, merchantID int32) map[string]healthJSON {
	t.Helper()
	var out struct {
		Endpoints []healthJSON `json:"endpoints"`
	}
	must(t, c, s.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/merchants/"+strconv.Itoa(int(merchantID))+"/callbacks/health", nil, &out)
	m := map[string]healthJSON{}
	for _, h := range out.Endpoints {
		m[h.CallbackID] = h
	}
	return m
}

func (s *service) breaker(t *testing.T, urlID int64) (state string, cooldownMS int64) {
	t.Helper()
	err := s.pool.QueryRow(t.Context(), `SELECT state, cooldown_ms FROM url_breakers WHERE callback_url_id = $1`, urlID).Scan(&state, &cooldownMS)
	if err != nil {
		return "", 0
	}
	return state, cooldownMS
}

// A receiver failing in a row opens its URL's breaker: nothing is attempted
// while open (the delivery stays pending, its attempts not used up), one
// probe goes out after the cool-down, a failed probe doubles it, and a
// successful one closes the breaker and sends what waited.
func TestBreakerOpensProbesAndCloses(t *testing.T) {
	t.Parallel()
	svc := startService(t, map[string]string{
		"PAYGATE_CALLBACK_BREAKER_FAILURES":     "3",
		"PAYGATE_CALLBACK_BREAKER_COOLDOWN":     "1500ms",
		"PAYGATE_CALLBACK_BREAKER_COOLDOWN_CAP": "10s",
	})
	ev := connect(t)
	m := newMerchant(t)
	c := newCollab(t, m)
	rec := newReceiver(t)
	rec.status.Store(http.StatusServiceUnavailable)
	admin := user(t, access.RoleAdmin)
	u := svc.createURL(t, admin, map[string]any{"collabId": c, "callbackUrl": rec.URL, "maxAttempts": 12})

	x1 := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x1)
	waitFor(t, 10*time.Second, "the breaker to open", func() bool { s, _ := svc.breaker(t, u.ID); return s == "open" })
	openedAt := time.Now()
	if n := len(rec.of(x1.id)); n != 3 {
		t.Fatalf("%d attempts before the breaker opened, want 3", n)
	}
	// Open: nothing is sent, the delivery stays pending with 3 attempts.
	time.Sleep(time.Second)
	if n := len(rec.of(x1.id)); n != 3 && time.Since(openedAt) < 1400*time.Millisecond {
		t.Fatalf("%d attempts while the breaker was open", n)
	}
	if n := svc.queryInt(t, `SELECT attempts_made FROM deliveries WHERE transaction_id = $1 AND status = 'pending'`, x1.id); n != 3 {
		t.Fatalf("attempts_made = %d while open, want 3", n)
	}
	h := svc.health(t, admin, m)[strconv.FormatInt(u.ID, 10)]
	if h.BreakerState != "open" || h.ConsecutiveFailures != 3 || h.RetryUtc == "" || h.Attempts != "3" || h.Successes != "0" ||
		h.SuccessRate == nil || *h.SuccessRate != 0 || h.P95LatencyMs == nil {
		t.Fatalf("health while open = %+v", h)
	}

	// Half-open: one probe after the cool-down; it fails and the cool-down
	// doubles.
	waitFor(t, 5*time.Second, "the probe", func() bool { return len(rec.of(x1.id)) == 4 })
	if d := time.Since(openedAt); d < time.Second {
		t.Fatalf("the probe came %v after the breaker opened, before the cool-down", d)
	}
	waitFor(t, 5*time.Second, "the breaker to open again", func() bool {
		s, cd := svc.breaker(t, u.ID)
		return s == "open" && cd == 3000
	})
	reopened := time.Now()

	// A transaction finalized while open is not attempted (the dispatcher
	// reads the open breakers every second): its delivery waits, pending.
	time.Sleep(1100 * time.Millisecond)
	x2 := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x2)
	waitFor(t, 5*time.Second, "the second delivery stored", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = $1 AND status = 'pending' AND attempts_made = 0`, x2.id) == 1
	})
	if n := len(rec.of(x2.id)); n != 0 && time.Since(reopened) < 2900*time.Millisecond {
		t.Fatalf("the second transaction was sent %d times while the breaker was open", n)
	}

	// The receiver is back: the next probe closes the breaker and what
	// waited is sent, once each.
	rec.status.Store(http.StatusOK)
	waitFor(t, 10*time.Second, "both delivered", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = ANY($1) AND status = 'delivered'`, []int64{x1.id, x2.id}) == 2
	})
	if s, _ := svc.breaker(t, u.ID); s != "closed" {
		t.Fatalf("breaker %q after a successful probe, want closed", s)
	}
	if n := len(rec.of(x2.id)); n != 1 {
		t.Fatalf("the second transaction was sent %d times, want 1", n)
	}
	h = svc.health(t, admin, m)[strconv.FormatInt(u.ID, 10)]
	if h.BreakerState != "closed" || h.ConsecutiveFailures != 0 || h.Successes != "2" || h.Attempts != "6" {
		t.Fatalf("health after closing = %+v", h)
	}
}

// A dead endpoint (it never answers in time) does not slow deliveries to a
// healthy one: once its breaker is open it holds no request slot.
func TestDeadEndpointDoesNotSlowHealthyOnes(t *testing.T) {
	t.Parallel()
	svc := startService(t, map[string]string{
		"PAYGATE_CALLBACK_WORKERS":              "4",
		"PAYGATE_CALLBACK_TIMEOUT":              "1s",
		"PAYGATE_CALLBACK_BREAKER_FAILURES":     "2",
		"PAYGATE_CALLBACK_BREAKER_COOLDOWN":     "30s",
		"PAYGATE_CALLBACK_BREAKER_COOLDOWN_CAP": "1m",
	})
	ev := connect(t)
	m, hm := newMerchant(t), newMerchant(t)
	deadCollab, healthyCollab := newCollab(t, m), newCollab(t, hm)
	var deadHits atomic.Int32
	dead := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		deadHits.Add(1)
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(dead.Close)
	healthy := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	du := svc.createURL(t, admin, map[string]any{"collabId": deadCollab, "callbackUrl": dead.URL, "maxAttempts": 12})
	svc.createURL(t, admin, map[string]any{"collabId": healthyCollab, "callbackUrl": healthy.URL})

	ev.finalize(t, tx{id: newTxID(), merchant: m, collab: deadCollab, typ: 1, prev: 3, status: 4})
	waitFor(t, 15*time.Second, "the dead endpoint's breaker to open", func() bool { s, _ := svc.breaker(t, du.ID); return s == "open" })
	time.Sleep(1100 * time.Millisecond) // every dispatcher has read it
	hitsBefore := deadHits.Load()

	var ids []int64
	start := time.Now()
	for range 40 {
		d := tx{id: newTxID(), merchant: m, collab: deadCollab, typ: 1, prev: 3, status: 4}
		ev.finalize(t, d)
		h := tx{id: newTxID(), merchant: hm, collab: healthyCollab, typ: 1, prev: 3, status: 4}
		ev.finalize(t, h)
		ids = append(ids, h.id)
	}
	waitFor(t, 10*time.Second, "the healthy deliveries", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = ANY($1) AND status = 'delivered'`, ids) == 40
	})
	// 40 requests to a receiver that never answers would take 10 s on 4
	// slots; the healthy ones went out without waiting for them.
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the healthy deliveries took %v", d)
	}
	if n := deadHits.Load() - hitsBefore; n > 0 {
		t.Fatalf("the dead endpoint got %d requests while its breaker was open", n)
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE callback_url_id = $1 AND status = 'pending'`, du.ID); n != 41 {
		t.Fatalf("%d of the dead endpoint's deliveries are pending, want 41", n)
	}
}

// Every attempt failing for PAYGATE_CALLBACK_DISABLE_AFTER disables the
// URL with its reason and an event; its pending delivery waits; Enable
// sends it, and with recoverSinceDisabled starts a retry run since then.
func TestAutoDisableAndReenable(t *testing.T) {
	t.Parallel()
	svc := startService(t, map[string]string{
		"PAYGATE_CALLBACK_BREAKER_FAILURES":     "2",
		"PAYGATE_CALLBACK_BREAKER_COOLDOWN":     "100ms",
		"PAYGATE_CALLBACK_BREAKER_COOLDOWN_CAP": "200ms",
		"PAYGATE_CALLBACK_DISABLE_AFTER":        "1s",
	})
	ev := connect(t)
	m := newMerchant(t)
	c := newCollab(t, m)
	rec := newReceiver(t)
	rec.status.Store(http.StatusBadGateway)
	admin := user(t, access.RoleAdmin)
	u := svc.createURL(t, admin, map[string]any{"collabId": c, "callbackUrl": rec.URL, "maxAttempts": 12})
	other := svc.createURL(t, admin, map[string]any{"collabId": c, "callbackUrl": rec.URL + "/other", "maxAttempts": 12})
	id := strconv.FormatInt(u.ID, 10)

	// Bad input: a 400 naming the field, nothing written.
	before := svc.queryInt(t, `SELECT extract(epoch FROM updated_at)*1000000 FROM callback_urls WHERE id = $1`, other.ID)
	status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks/"+strconv.FormatInt(other.ID, 10)+"/enable",
		map[string]any{"recoverSinceDisabled": true})
	if status != http.StatusBadRequest || !strings.Contains(errorMessage(t, raw), "recoverSinceDisabled") {
		t.Fatalf("recover on a URL never disabled = %d %s, want 400 naming recoverSinceDisabled", status, raw)
	}
	if after := svc.queryInt(t, `SELECT extract(epoch FROM updated_at)*1000000 FROM callback_urls WHERE id = $1`, other.ID); after != before {
		t.Fatal("a refused enable wrote the URL")
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodDelete, "/api/v1/callbacks/"+strconv.FormatInt(other.ID, 10), nil, nil)

	x := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x)
	var disabled eventsv1.CallbackUrlDisabled
	data := ev.next(t, bus.Subject(&disabled), func(data []byte) bool {
		var d eventsv1.CallbackUrlDisabled
		return proto.Unmarshal(data, &d) == nil && d.GetCallbackId() == u.ID && d.GetMerchantId() == m
	})
	if data == nil {
		t.Fatal("no CallbackUrlDisabled")
	}
	if err := proto.Unmarshal(data, &disabled); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(disabled.GetReason(), "Every attempt since ") || !strings.Contains(disabled.GetReason(), "HTTP 502") {
		t.Fatalf("reason %q", disabled.GetReason())
	}
	var listed []callbackJSON
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/collabs/"+strconv.Itoa(int(c))+"/callbacks", nil, &listed)
	if len(listed) != 1 || listed[0].IsEnabled {
		t.Fatalf("listed %+v, want the URL disabled", listed)
	}
	h := svc.health(t, admin, m)[id]
	if h.BreakerState != "disabled" || h.DisabledReason == nil || *h.DisabledReason != disabled.GetReason() || h.DisabledUtc == "" {
		t.Fatalf("health = %+v", h)
	}
	// Its delivery is kept pending, and no more attempts are made.
	sent := len(rec.of(x.id))
	time.Sleep(500 * time.Millisecond)
	if n := len(rec.of(x.id)); n != sent {
		t.Fatalf("%d attempts after the URL was disabled", n-sent)
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = $1 AND status = 'pending'`, x.id); n != 1 {
		t.Fatal("the delivery of a URL disabled automatically is not pending")
	}

	// Re-enable with recover since disabled: the pending delivery goes out,
	// and a retry run over the URL's failures since then is started.
	rec.status.Store(http.StatusOK)
	var out struct {
		Callback struct {
			IsEnabled      bool    `json:"isEnabled"`
			DisabledReason *string `json:"disabledReason"`
		} `json:"callback"`
		RetryRunID string `json:"retryRunId"`
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callbacks/"+id+"/enable", map[string]any{"recoverSinceDisabled": true}, &out)
	if !out.Callback.IsEnabled || out.Callback.DisabledReason != nil || out.RetryRunID == "" {
		t.Fatalf("enable = %+v", out)
	}
	waitFor(t, 10*time.Second, "the kept delivery sent", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = $1 AND status = 'delivered'`, x.id) == 1
	})
	var filter string
	if err := svc.pool.QueryRow(t.Context(), `SELECT filter::text FROM callback_retries WHERE id = $1`, out.RetryRunID).Scan(&filter); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(filter, `"callbackUrlId": `+id) || !strings.Contains(filter, `"from"`) {
		t.Fatalf("the recovery run's filter is %s", filter)
	}
	if s, _ := svc.breaker(t, u.ID); s != "" {
		t.Fatalf("breaker %q after enabling, want none (closed)", s)
	}
	// Another merchant's admin cannot enable it or read its health.
	other2 := user(t, access.RoleMerchantAdmin, newMerchant(t))
	if status, _ := call(t, other2, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks/"+id+"/enable", map[string]any{}); status != http.StatusNotFound {
		t.Fatalf("another merchant's enable = %d, want 404", status)
	}
	if status, _ := call(t, other2, svc.HTTPURL, http.MethodGet, "/api/v1/merchants/"+strconv.Itoa(int(m))+"/callbacks/health", nil); status != http.StatusNotFound {
		t.Fatalf("another merchant's health = %d, want 404", status)
	}
}

// A URL's filter of final statuses: deliveries are made only for matching
// transactions (none is created for the others); bad statuses are a 400
// naming finalStatuses, with nothing written.
func TestFinalStatusFilter(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	m := newMerchant(t)
	c := newCollab(t, m)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)

	for _, body := range []map[string]any{
		{"collabId": c, "callbackUrl": rec.URL, "finalStatuses": []int{4, 7}},
		{"collabId": c, "callbackUrl": rec.URL, "finalStatuses": []int{0, 4}},
	} {
		status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks", body)
		if status != http.StatusBadRequest || !strings.Contains(errorMessage(t, raw), "finalStatuses") {
			t.Fatalf("%v = %d %s, want 400 naming finalStatuses", body, status, raw)
		}
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM callback_urls`); n != 0 {
		t.Fatal("a refused create wrote a URL")
	}

	var u struct {
		ID            string  `json:"id"`
		FinalStatuses []int32 `json:"finalStatuses"`
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callbacks",
		map[string]any{"collabId": c, "callbackUrl": rec.URL, "transactionTypeId": 1, "finalStatuses": []int{-2, 4}}, &u)
	if len(u.FinalStatuses) != 2 || u.FinalStatuses[0] != -2 || u.FinalStatuses[1] != 4 {
		t.Fatalf("finalStatuses = %v", u.FinalStatuses)
	}
	// An edit with a bad status writes nothing.
	status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks/"+u.ID, map[string]any{"finalStatuses": []int{3}})
	if status != http.StatusBadRequest || !strings.Contains(errorMessage(t, raw), "finalStatuses must list final statuses") {
		t.Fatalf("edit = %d %s", status, raw)
	}

	ok := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
	failedMatching := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: -2}
	otherStatus := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: -1}
	otherType := tx{id: newTxID(), merchant: m, collab: c, typ: 2, prev: 3, status: 4}
	for _, x := range []tx{otherStatus, otherType, ok, failedMatching} {
		ev.finalize(t, x)
	}
	waitFor(t, 10*time.Second, "the matching deliveries", func() bool { return len(rec.of(ok.id)) == 1 && len(rec.of(failedMatching.id)) == 1 })
	// The others were projected, with no delivery.
	waitFor(t, 10*time.Second, "the other transactions projected", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM transactions WHERE id = ANY($1)`, []int64{otherStatus.id, otherType.id}) == 2
	})
	if n := svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = ANY($1)`, []int64{otherStatus.id, otherType.id}); n != 0 {
		t.Fatalf("%d deliveries made for transactions the filter leaves out", n)
	}
	// Enqueue follows the filter too.
	var q struct {
		Queued int32 `json:"queued"`
	}
	must(t, admin, svc.HTTPURL, http.StatusAccepted, http.MethodPost, "/api/v1/transactions/"+strconv.FormatInt(otherStatus.id, 10)+"/callbacks/enqueue", nil, &q)
	if q.Queued != 0 {
		t.Fatalf("enqueue of a filtered-out status queued %d", q.Queued)
	}
	// [0] is every final status again.
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callbacks/"+u.ID, map[string]any{"finalStatuses": []int{0}}, &u)
	if len(u.FinalStatuses) != 0 {
		t.Fatalf("finalStatuses after [0] = %v", u.FinalStatuses)
	}
	must(t, admin, svc.HTTPURL, http.StatusAccepted, http.MethodPost, "/api/v1/transactions/"+strconv.FormatInt(otherStatus.id, 10)+"/callbacks/enqueue", nil, &q)
	if q.Queued != 1 {
		t.Fatalf("enqueue after clearing the filter queued %d", q.Queued)
	}
}

// Payload retention: the job callbacks.payload-purge empties the bodies of
// delivered callbacks older than the retention, keeps their attempts, and
// keeps the body of a failed delivery (it may be retried).
func TestPayloadRetentionPurge(t *testing.T) {
	t.Parallel()
	svc := startService(t, map[string]string{
		"PAYGATE_CALLBACK_PAYLOAD_RETENTION":      "1s",
		"PAYGATE_CALLBACK_PAYLOAD_PURGE_INTERVAL": "300ms",
	})
	ev := connect(t)
	m, m2 := newMerchant(t), newMerchant(t)
	c, c2 := newCollab(t, m), newCollab(t, m2)
	ok, bad := newReceiver(t), newReceiver(t)
	bad.status.Store(http.StatusInternalServerError)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": c, "callbackUrl": ok.URL})
	svc.createURL(t, admin, map[string]any{"collabId": c2, "callbackUrl": bad.URL, "maxAttempts": 1})

	delivered := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
	failed := tx{id: newTxID(), merchant: m2, collab: c2, typ: 1, prev: 3, status: 4}
	ev.finalize(t, delivered)
	ev.finalize(t, failed)
	waitFor(t, 10*time.Second, "both settled", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = ANY($1) AND status IN ('delivered', 'failed')`,
			[]int64{delivered.id, failed.id}) == 2
	})
	if a := svc.attempts(t, admin, delivered.id); len(a.CallbackAttempts) != 1 || a.CallbackAttempts[0].RequestBody == "" {
		t.Fatalf("attempts before the purge = %+v", a)
	}
	waitFor(t, 15*time.Second, "the delivered body purged", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM delivery_bodies b JOIN deliveries d ON d.event_id = b.event_id
			WHERE d.transaction_id = $1 AND b.purged_at IS NOT NULL AND b.body = ''`, delivered.id) == 1
	})
	a := svc.attempts(t, admin, delivered.id)
	if len(a.CallbackAttempts) != 1 || a.CallbackAttempts[0].RequestBody != "" || a.CallbackAttempts[0].CallbackAttemptStatus != "Success" ||
		a.CallbackAttempts[0].CallbackURL != ok.URL {
		t.Fatalf("attempts after the purge = %+v", a)
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM delivery_bodies b JOIN deliveries d ON d.event_id = b.event_id
		WHERE d.transaction_id = $1 AND b.purged_at IS NULL AND b.body <> ''`, failed.id); n != 1 {
		t.Fatal("the body of a failed delivery was purged")
	}
}
