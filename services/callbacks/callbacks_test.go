package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	cbnats "github.com/paygate/paygate/services/callbacks/internal/nats"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// verifyStandardWebhook checks a delivery the way a merchant's receiver
// would, knowing only the documented scheme (docs/contracts-callbacks.md):
// HMAC-SHA256 keyed with the base64 after "whsec_", over
// "<webhook-id>.<webhook-timestamp>.<body>", sent as "v1,<base64>".
func verifyStandardWebhook(t *testing.T, secret string, r received) {
	t.Helper()
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		t.Fatalf("secret %q: %v", secret, err)
	}
	id, ts := r.header.Get("webhook-id"), r.header.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		t.Fatalf("webhook-timestamp %q: %v", ts, err)
	}
	if d := time.Since(time.Unix(sec, 0)); d < -time.Minute || d > time.Minute {
		t.Fatalf("webhook-timestamp %s is %v away from now", ts, d)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(r.body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(r.header.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return
		}
	}
	t.Fatalf("webhook-signature %q does not verify (want %s)", r.header.Get("webhook-signature"), want)
}

func TestDeliveryIsSignedAndListed(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)

	cb := svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL + "/hook", "transactionTypeId": nil})
	if !cb.IsEnabled || cb.MaxAttempts != 3 || !cb.AddSignature || cb.TransactionTypeID != nil || cb.MerchantID != merchant || cb.CollabID != collab {
		t.Fatalf("created callback URL %+v: want the defaults (enabled, 3 attempts, signed, every type) and merchant %d", cb, merchant)
	}
	created := ev.urlChange(t, cb.ID, admin)
	if created.GetAction() != "Created" || created.GetUserId() != admin.id || created.GetUsername() != admin.name ||
		created.GetUserAgent() != "callbacks-test/"+admin.name || created.GetOldValue() != "null" ||
		!strings.Contains(created.GetNewValue(), rec.URL+"/hook") || created.GetMerchantId() != merchant || created.GetChangeId() == "" {
		t.Fatalf("CallbackUrlChanged = %v", created)
	}

	var secret struct {
		Secret string `json:"secret"`
	}
	path := "/api/v1/merchants/" + strconv.Itoa(int(merchant)) + "/callbacks/secret"
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, path, nil, &secret)
	demo := "whsec_" + base64.StdEncoding.EncodeToString([]byte("paygate-demo-callback-secret-"+strconv.Itoa(int(merchant))))
	if secret.Secret != demo {
		t.Fatalf("demo secret = %q, want %q", secret.Secret, demo)
	}

	x := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x)
	waitFor(t, 15*time.Second, "the callback", func() bool { return len(rec.of(x.id)) == 1 })
	got := rec.of(x.id)[0]
	if ct := got.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if !strings.HasPrefix(got.header.Get("webhook-id"), "msg_") || len(got.header.Get("webhook-id")) != 30 {
		t.Errorf("webhook-id = %q, want msg_ and 26 characters", got.header.Get("webhook-id"))
	}
	verifyStandardWebhook(t, secret.Secret, got)
	var body struct {
		Type      string         `json:"type"`
		Timestamp string         `json:"timestamp"`
		Data      map[string]any `json:"data"`
	}
	if err := json.Unmarshal(got.body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Type != "transaction.finalized" || body.Timestamp == "" {
		t.Errorf("body type %q timestamp %q", body.Type, body.Timestamp)
	}
	wantData := map[string]any{
		"id": strconv.FormatInt(x.id, 10), "transactionReferenceId": "ref-" + strconv.FormatInt(x.id, 10),
		"merchantClientId": "client-9", "nonce": "nonce-" + strconv.FormatInt(x.id, 10), "amount": "12.34",
		"currency": "PHP", "destinationAmount": "12.34", "destinationCurrency": "PHP", "transactionType": 1.0,
		"transactionStatus": 4.0, "transactionStatusMessage": "Status 4", "providerTransactionId": "psp-" + strconv.FormatInt(x.id, 10),
		"errorMessage": "", "collabId": float64(collab), "merchantId": float64(merchant),
	}
	for k, v := range wantData {
		if body.Data[k] != v {
			t.Errorf("data.%s = %v, want %v", k, body.Data[k], v)
		}
	}
	for _, k := range []string{"createdUtc", "updatedUtc"} {
		if _, err := time.Parse(time.RFC3339Nano, body.Data[k].(string)); err != nil {
			t.Errorf("data.%s = %v: %v", k, body.Data[k], err)
		}
	}

	ev.tally(t, x.id, func(e *eventsv1.CallbackDeliveryChanged) bool { return e.GetDelivered() == 1 && e.GetTotal() == 1 })
	page := svc.attempts(t, admin, x.id)
	if page.TotalCount != "1" || page.CurrentPage != 1 || page.TotalPages != 1 || len(page.CallbackAttempts) != 1 {
		t.Fatalf("attempts page %+v", page)
	}
	a := page.CallbackAttempts[0]
	if a.CallbackAttemptStatus != "Success" || a.ResponseCode != 200 || a.AttemptNumber != 1 || a.ErrorMessage != "" ||
		a.WebhookID != got.header.Get("webhook-id") || a.RequestBody != string(got.body) || a.CallbackURL != rec.URL+"/hook" ||
		a.TransactionID != strconv.FormatInt(x.id, 10) {
		t.Fatalf("attempt %+v", a)
	}

	// A bad overlap is a 400 naming it, and rotates nothing.
	if status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, path+"/rotate", map[string]any{"overlapHours": 169}); status != http.StatusBadRequest ||
		!strings.Contains(errorMessage(t, raw), "overlapHours") {
		t.Fatalf("rotate with overlapHours 169 = %d %s", status, raw)
	}
	// After a rotation (24 h of overlap by default), deliveries carry both
	// signatures: the new secret's first, then the old one's.
	var rotated struct {
		Secret string `json:"secret"`
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, path+"/rotate", nil, &rotated)
	if rotated.Secret == secret.Secret || !strings.HasPrefix(rotated.Secret, "whsec_") {
		t.Fatalf("rotated secret %q", rotated.Secret)
	}
	y := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 2, prev: 3, status: -2}
	ev.finalize(t, y)
	waitFor(t, 15*time.Second, "the second callback", func() bool { return len(rec.of(y.id)) == 1 })
	if sigs := strings.Fields(rec.of(y.id)[0].header.Get("webhook-signature")); len(sigs) != 2 {
		t.Fatalf("webhook-signature during the overlap = %q, want two", sigs)
	}
	verifyStandardWebhook(t, rotated.Secret, rec.of(y.id)[0])
	verifyStandardWebhook(t, secret.Secret, rec.of(y.id)[0])

	// A rotation without overlap replaces the secret at once: one signature.
	var third struct {
		Secret string `json:"secret"`
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, path+"/rotate", map[string]any{"overlapHours": 0}, &third)
	y2 := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 2, prev: 3, status: -2}
	ev.finalize(t, y2)
	waitFor(t, 15*time.Second, "the third callback", func() bool { return len(rec.of(y2.id)) == 1 })
	if sigs := strings.Fields(rec.of(y2.id)[0].header.Get("webhook-signature")); len(sigs) != 1 {
		t.Fatalf("webhook-signature after a rotation without overlap = %q, want one", sigs)
	}
	verifyStandardWebhook(t, third.Secret, rec.of(y2.id)[0])

	// An unsigned URL gets the id and timestamp but no signature.
	unsigned := svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL + "/plain", "addSignature": false})
	if unsigned.AddSignature {
		t.Fatal("addSignature false was not kept")
	}
	z := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4}
	ev.finalize(t, z)
	waitFor(t, 15*time.Second, "two callbacks", func() bool { return len(rec.of(z.id)) == 2 })
	signed := 0
	for _, r := range rec.of(z.id) {
		if r.header.Get("webhook-signature") != "" {
			signed++
		}
		if r.header.Get("webhook-id") == "" || r.header.Get("webhook-timestamp") == "" {
			t.Errorf("a delivery lacks its id or timestamp: %v", r.header)
		}
	}
	if signed != 1 {
		t.Fatalf("%d of 2 deliveries signed, want 1", signed)
	}
}

func TestBackoffMaxAttemptsAndRetry(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	rec.status.Store(http.StatusInternalServerError)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL, "maxAttempts": 3})

	x := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x)
	waitFor(t, 15*time.Second, "three attempts", func() bool { return len(rec.of(x.id)) >= 3 })
	ev.tally(t, x.id, func(e *eventsv1.CallbackDeliveryChanged) bool { return e.GetFailed() == 1 && e.GetTotal() == 1 })
	// The backoff is capped at 100ms here: a fourth attempt would have come.
	time.Sleep(400 * time.Millisecond)
	got := rec.of(x.id)
	if len(got) != 3 {
		t.Fatalf("%d attempts, want exactly max attempts (3)", len(got))
	}
	for _, r := range got[1:] {
		if r.header.Get("webhook-id") != got[0].header.Get("webhook-id") || string(r.body) != string(got[0].body) {
			t.Fatal("the attempts of one delivery differ in webhook id or body")
		}
	}
	page := svc.attempts(t, admin, x.id)
	if page.TotalCount != "3" || len(page.CallbackAttempts) != 3 {
		t.Fatalf("attempts page %+v", page)
	}
	for i, want := range []struct {
		n      int32
		status string
	}{{3, "Failed"}, {2, "Retried"}, {1, "Retried"}} {
		a := page.CallbackAttempts[i]
		if a.AttemptNumber != want.n || a.CallbackAttemptStatus != want.status || a.ResponseCode != 500 || !strings.Contains(a.ErrorMessage, "HTTP 500") {
			t.Fatalf("attempt %d: %+v, want number %d %s", i, a, want.n, want.status)
		}
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = $1 AND status = 'failed'`, x.id); n != 1 {
		t.Fatalf("failed deliveries = %d", n)
	}

	retry := func(id int64) (int, []byte) {
		return call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks/attempts/"+strconv.FormatInt(id, 10)+"/retry", nil)
	}
	// Only the Failed attempt can be retried.
	if status, raw := retry(page.CallbackAttempts[1].ID); status != http.StatusUnprocessableEntity ||
		!strings.Contains(errorMessage(t, raw), "Only a failed attempt can be retried") {
		t.Fatalf("retry of a Retried attempt = %d %s", status, raw)
	}
	if status, _ := retry(1 << 60); status != http.StatusNotFound {
		t.Fatalf("retry of an unknown attempt = %d", status)
	}
	rec.status.Store(http.StatusOK)
	status, raw := retry(page.CallbackAttempts[0].ID)
	if status != http.StatusAccepted {
		t.Fatalf("retry = %d %s, want 202", status, raw)
	}
	var retried struct {
		Attempt attemptJSON `json:"attempt"`
	}
	if err := json.Unmarshal(raw, &retried); err != nil || retried.Attempt.CallbackAttemptStatus != "Retried" {
		t.Fatalf("retry answer %s", raw)
	}
	waitFor(t, 15*time.Second, "the retried attempt", func() bool { return len(rec.of(x.id)) == 4 })
	if rec.of(x.id)[3].header.Get("webhook-id") != got[0].header.Get("webhook-id") {
		t.Fatal("the retry has another webhook id")
	}
	ev.tally(t, x.id, func(e *eventsv1.CallbackDeliveryChanged) bool { return e.GetDelivered() == 1 && e.GetFailed() == 0 })
	page = svc.attempts(t, admin, x.id)
	if page.TotalCount != "4" || page.CallbackAttempts[0].CallbackAttemptStatus != "Success" || page.CallbackAttempts[0].AttemptNumber != 4 ||
		page.CallbackAttempts[1].CallbackAttemptStatus != "Retried" {
		t.Fatalf("attempts after the retry: %+v", page.CallbackAttempts)
	}
	if status, _ := retry(page.CallbackAttempts[1].ID); status != http.StatusUnprocessableEntity {
		t.Fatalf("a second retry of the same attempt = %d, want 422", status)
	}
	// Paging: newest first, 2 per page.
	var p2 attemptsJSON
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/transactions/"+strconv.FormatInt(x.id, 10)+"/callbacks/attempts?page=2&take=3", nil, &p2)
	if p2.TotalPages != 2 || p2.CurrentPage != 2 || len(p2.CallbackAttempts) != 1 || p2.CallbackAttempts[0].AttemptNumber != 1 {
		t.Fatalf("page 2 of 3: %+v", p2)
	}
}

func TestEnqueue(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	enqueue := func(id int64) (int, []byte) {
		return call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/transactions/"+strconv.FormatInt(id, 10)+"/callbacks/enqueue", nil)
	}
	known := func(id int64) func() bool {
		return func() bool { return svc.queryInt(t, `SELECT count(*) FROM transactions WHERE id = $1`, id) == 1 }
	}

	if status, raw := enqueue(newTxID()); status != http.StatusNotFound || !strings.Contains(errorMessage(t, raw), "was not found") {
		t.Fatalf("enqueue of an unknown transaction = %d %s", status, raw)
	}
	x := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 1, status: 3}
	ev.update(t, x)
	waitFor(t, 15*time.Second, "the pending transaction", known(x.id))
	if status, raw := enqueue(x.id); status != http.StatusUnprocessableEntity || !strings.Contains(errorMessage(t, raw), "is not final") {
		t.Fatalf("enqueue of a pending transaction = %d %s", status, raw)
	}
	if len(rec.of(x.id)) != 0 {
		t.Fatal("a pending transaction was sent")
	}

	// Final, before any URL: nothing is sent; once a URL exists, enqueue
	// sends the outcome, each time as a new delivery.
	x.prev, x.status = 3, -4
	ev.finalize(t, x)
	waitFor(t, 15*time.Second, "the final status", func() bool {
		return svc.queryInt(t, `SELECT status FROM transactions WHERE id = $1`, x.id) == -4
	})
	svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL})
	svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL + "/cash-out-only", "transactionTypeId": 2})
	status, raw := enqueue(x.id)
	var out struct {
		Queued int32 `json:"queued"`
	}
	if status != http.StatusAccepted || json.Unmarshal(raw, &out) != nil || out.Queued != 1 {
		t.Fatalf("enqueue = %d %s, want 202 queued 1 (the cash-out URL does not match a deposit)", status, raw)
	}
	waitFor(t, 15*time.Second, "the enqueued callback", func() bool { return len(rec.of(x.id)) == 1 })
	if status, _ := enqueue(x.id); status != http.StatusAccepted {
		t.Fatalf("second enqueue = %d", status)
	}
	waitFor(t, 15*time.Second, "the second enqueued callback", func() bool { return len(rec.of(x.id)) == 2 })
	if a, b := rec.of(x.id)[0].header.Get("webhook-id"), rec.of(x.id)[1].header.Get("webhook-id"); a == b {
		t.Fatal("two enqueues made one delivery id")
	}
	var body struct {
		Data struct {
			TransactionStatus int32 `json:"transactionStatus"`
		} `json:"data"`
	}
	if err := json.Unmarshal(rec.of(x.id)[0].body, &body); err != nil || body.Data.TransactionStatus != -4 {
		t.Fatalf("enqueued body %s", rec.of(x.id)[0].body)
	}

	// Cancelled callbacks: refused.
	x.prev, x.cancelled, x.updatedAt = x.status, true, time.Now().Add(time.Second)
	ev.finalize(t, x)
	waitFor(t, 15*time.Second, "the cancel", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM transactions WHERE id = $1 AND callbacks_canceled`, x.id) == 1
	})
	if status, raw := enqueue(x.id); status != http.StatusUnprocessableEntity || !strings.Contains(errorMessage(t, raw), "cancelled") {
		t.Fatalf("enqueue with callbacks cancelled = %d %s", status, raw)
	}
}

func TestCancelledCallbacksAreNotSent(t *testing.T) {
	t.Parallel()
	// Retries 300ms apart at most, so a pending one is seen being cancelled.
	svc := startService(t, map[string]string{"PAYGATE_CALLBACK_BACKOFF_BASE": "300ms", "PAYGATE_CALLBACK_BACKOFF_CAP": "300ms"})
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL, "maxAttempts": 12})

	// Cancelled before it became final: nothing at all.
	x := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4, cancelled: true}
	ev.finalize(t, x)
	waitFor(t, 15*time.Second, "the transaction", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM transactions WHERE id = $1`, x.id) == 1
	})
	if n := svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = $1`, x.id); n != 0 {
		t.Fatalf("%d deliveries of a transaction whose callbacks were cancelled", n)
	}

	// Cancelled while retrying: the pending delivery stops.
	rec.status.Store(http.StatusServiceUnavailable)
	y := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: -1}
	ev.finalize(t, y)
	waitFor(t, 15*time.Second, "a failed attempt", func() bool { return len(rec.of(y.id)) >= 1 })
	ev.tally(t, y.id, func(e *eventsv1.CallbackDeliveryChanged) bool { return e.GetTotal() == 1 })
	y.prev, y.cancelled, y.updatedAt = y.status, true, time.Now().Add(time.Second)
	ev.finalize(t, y)
	ev.tally(t, y.id, func(e *eventsv1.CallbackDeliveryChanged) bool { return e.GetTotal() == 0 })
	if n := svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = $1 AND status = 'cancelled'`, y.id); n != 1 {
		t.Fatalf("cancelled deliveries = %d, want 1", n)
	}
	sent := len(rec.of(y.id))
	time.Sleep(800 * time.Millisecond)
	if now := len(rec.of(y.id)); now > sent+1 {
		// One attempt may have been in flight when the cancel landed.
		t.Fatalf("%d attempts after the cancel", now-sent)
	}
	// Its failed attempt cannot be retried.
	page := svc.attempts(t, admin, y.id)
	for _, a := range page.CallbackAttempts {
		status, _ := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks/attempts/"+strconv.FormatInt(a.ID, 10)+"/retry", nil)
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("retry of attempt %s of a cancelled transaction = %d", a.CallbackAttemptStatus, status)
		}
	}
}

// A transaction finalized while its collab's merchant callbacks
// (IsMerchantCallbackEnabled) are off is sent nothing; an operator's
// enqueue still sends it, and a later final change with them on is sent.
func TestMerchantCallbacksOff(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL})

	off := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4, callbacksOff: true}
	ev.finalize(t, off)
	on := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4}
	ev.finalize(t, on)
	// The deliveries an event makes are written with its transaction's row.
	waitFor(t, 15*time.Second, "the callback of the transaction with callbacks on", func() bool { return len(rec.of(on.id)) == 1 })
	waitFor(t, 15*time.Second, "the transaction with callbacks off", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM transactions WHERE id = $1`, off.id) == 1
	})
	if n := svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = $1`, off.id); n != 0 || len(rec.of(off.id)) != 0 {
		t.Fatalf("%d deliveries, %d requests for a transaction finalized with merchant callbacks off", n, len(rec.of(off.id)))
	}

	status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/transactions/"+strconv.FormatInt(off.id, 10)+"/callbacks/enqueue", nil)
	if status != http.StatusAccepted {
		t.Fatalf("enqueue = %d %s", status, raw)
	}
	waitFor(t, 15*time.Second, "the enqueued callback", func() bool { return len(rec.of(off.id)) == 1 })

	off.prev, off.status, off.callbacksOff, off.updatedAt = 4, -1, false, time.Now().Add(time.Second)
	ev.finalize(t, off)
	waitFor(t, 15*time.Second, "the callback of the change with callbacks on again", func() bool { return len(rec.of(off.id)) == 2 })
}

func TestSSRFGuard(t *testing.T) {
	t.Parallel()
	svc := startService(t, map[string]string{"PAYGATE_ALLOW_PRIVATE_URLS": "false"})
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)

	for _, u := range []string{rec.URL, "http://localhost:8080/cb", "http://169.254.169.254/latest/meta-data/", "http://[::ffff:10.0.0.1]/", "http://100.64.0.1/"} {
		status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks", map[string]any{"collabId": collab, "callbackUrl": u})
		if status != http.StatusBadRequest || !strings.Contains(errorMessage(t, raw), "private or reserved") {
			t.Errorf("create %s = %d %s, want 400 private or reserved", u, status, raw)
		}
	}
	for _, u := range []string{"ftp://merchant.example/cb", "https://user:pw@merchant.example/", "not a url"} {
		if status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks", map[string]any{"collabId": collab, "callbackUrl": u}); status != http.StatusBadRequest {
			t.Errorf("create %s = %d %s, want 400", u, status, raw)
		}
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM callback_urls`); n != 0 {
		t.Fatalf("%d callback URLs stored after refusals", n)
	}

	// A URL that passed the check when saved but reaches a private address
	// when sent (DNS rebinding) is refused at connect time.
	if _, err := svc.pool.Exec(context.Background(), `
		INSERT INTO callback_urls (collab_id, merchant_id, url, max_attempts, created_at, updated_at)
		VALUES ($1, $2, $3, 1, now(), now())`, collab, merchant, rec.URL); err != nil {
		t.Fatal(err)
	}
	x := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x)
	ev.tally(t, x.id, func(e *eventsv1.CallbackDeliveryChanged) bool { return e.GetFailed() == 1 })
	page := svc.attempts(t, admin, x.id)
	if len(page.CallbackAttempts) != 1 || page.CallbackAttempts[0].ResponseCode != 0 ||
		!strings.Contains(page.CallbackAttempts[0].ErrorMessage, "private or reserved address") {
		t.Fatalf("attempt %+v, want a refusal", page.CallbackAttempts)
	}
	if n := len(rec.of(x.id)); n != 0 {
		t.Fatalf("the private receiver got %d requests", n)
	}
}

func TestMerchantScope(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	mine, theirs := newMerchant(t), newMerchant(t)
	myCollab, theirCollab := newCollab(t, mine), newCollab(t, theirs)
	rec := newReceiver(t)
	rec.status.Store(http.StatusInternalServerError)
	admin := user(t, access.RoleAdmin)
	me := user(t, access.RoleMerchantAdmin, mine)

	myURL := svc.createURL(t, me, map[string]any{"collabId": myCollab, "callbackUrl": rec.URL, "maxAttempts": 1})
	theirURL := svc.createURL(t, admin, map[string]any{"collabId": theirCollab, "callbackUrl": rec.URL, "maxAttempts": 1})
	if myURL.MerchantID != mine || theirURL.MerchantID != theirs {
		t.Fatalf("merchants %d and %d, want %d and %d", myURL.MerchantID, theirURL.MerchantID, mine, theirs)
	}
	myTx := tx{id: newTxID(), merchant: mine, collab: myCollab, typ: 1, prev: 3, status: 4}
	theirTx := tx{id: newTxID(), merchant: theirs, collab: theirCollab, typ: 1, prev: 3, status: 4}
	ev.finalize(t, myTx)
	ev.finalize(t, theirTx)
	ev.tally(t, myTx.id, func(e *eventsv1.CallbackDeliveryChanged) bool { return e.GetFailed() == 1 })
	ev.tally(t, theirTx.id, func(e *eventsv1.CallbackDeliveryChanged) bool { return e.GetFailed() == 1 })
	theirAttempt := svc.attempts(t, admin, theirTx.id).CallbackAttempts[0]
	myAttempt := svc.attempts(t, me, myTx.id).CallbackAttempts[0]

	id := func(v int64) string { return strconv.FormatInt(v, 10) }
	m := func(v int32) string { return strconv.Itoa(int(v)) }
	snapshot := func() string {
		var s string
		if err := svc.pool.QueryRow(context.Background(), `
			SELECT (SELECT json_agg(u ORDER BY id)::text FROM callback_urls u) || (SELECT json_agg(a ORDER BY id)::text FROM attempts a) ||
				(SELECT count(*)::text FROM deliveries) || COALESCE((SELECT json_agg(s ORDER BY merchant_id)::text FROM signing_secrets s), '')`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()
	refused := []struct{ method, path string }{
		{http.MethodGet, "/api/v1/collabs/" + m(theirCollab) + "/callbacks"},
		{http.MethodGet, "/api/v1/merchants/" + m(theirs) + "/callbacks"},
		{http.MethodPost, "/api/v1/callbacks/" + id(theirURL.ID)},
		{http.MethodDelete, "/api/v1/callbacks/" + id(theirURL.ID)},
		{http.MethodGet, "/api/v1/transactions/" + id(theirTx.id) + "/callbacks/attempts"},
		{http.MethodPost, "/api/v1/callbacks/attempts/" + id(theirAttempt.ID) + "/retry"},
		{http.MethodPost, "/api/v1/transactions/" + id(theirTx.id) + "/callbacks/enqueue"},
		{http.MethodGet, "/api/v1/merchants/" + m(theirs) + "/callbacks/secret"},
		{http.MethodPost, "/api/v1/merchants/" + m(theirs) + "/callbacks/secret/rotate"},
	}
	for _, r := range refused {
		var body any
		if r.method == http.MethodPost && strings.HasPrefix(r.path, "/api/v1/callbacks/") && !strings.Contains(r.path, "attempts") {
			body = map[string]any{"callbackUrl": rec.URL + "/stolen", "maxAttempts": 5}
		}
		if status, raw := call(t, me, svc.HTTPURL, r.method, r.path, body); status != http.StatusNotFound {
			t.Errorf("%s %s as another merchant = %d %s, want 404", r.method, r.path, status, raw)
		}
	}
	// Creating on their collab: the gateway does not find it for me.
	if status, raw := call(t, me, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks", map[string]any{"collabId": theirCollab, "callbackUrl": rec.URL}); status != http.StatusNotFound {
		t.Errorf("create on another merchant's collab = %d %s, want 404", status, raw)
	}
	// Moving my URL to their collab: not found either.
	if status, raw := call(t, me, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks/"+id(myURL.ID), map[string]any{"collabId": theirCollab}); status != http.StatusNotFound {
		t.Errorf("move to another merchant's collab = %d %s, want 404", status, raw)
	}
	if after := snapshot(); after != before {
		t.Fatalf("refused calls changed data:\nbefore %s\nafter  %s", before, after)
	}

	// My own data answers, and the admin sees both.
	var list []callbackJSON
	must(t, me, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/collabs/"+m(myCollab)+"/callbacks", nil, &list)
	if len(list) != 1 || list[0].ID != myURL.ID {
		t.Fatalf("my collab's callbacks %+v", list)
	}
	must(t, me, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/merchants/"+m(mine)+"/callbacks", nil, &list)
	if len(list) != 1 {
		t.Fatalf("my merchant's callbacks %+v", list)
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/merchants/"+m(theirs)+"/callbacks", nil, &list)
	if len(list) != 1 || list[0].ID != theirURL.ID {
		t.Fatalf("admin's view of their callbacks %+v", list)
	}
	must(t, me, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/merchants/"+m(mine)+"/callbacks/secret", nil, nil)
	rec.status.Store(http.StatusOK)
	if status, raw := call(t, me, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks/attempts/"+id(myAttempt.ID)+"/retry", nil); status != http.StatusAccepted {
		t.Fatalf("retry of my attempt = %d %s", status, raw)
	}
	if status, raw := call(t, me, svc.HTTPURL, http.MethodPost, "/api/v1/transactions/"+id(myTx.id)+"/callbacks/enqueue", nil); status != http.StatusAccepted {
		t.Fatalf("enqueue of my transaction = %d %s", status, raw)
	}
	must(t, me, svc.HTTPURL, http.StatusOK, http.MethodDelete, "/api/v1/callbacks/"+id(myURL.ID), nil, nil)
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodDelete, "/api/v1/callbacks/"+id(theirURL.ID), nil, nil)
}

func TestRoles(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	cb := svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL})
	list := "/api/v1/collabs/" + strconv.Itoa(int(collab)) + "/callbacks"
	create := map[string]any{"collabId": collab, "callbackUrl": rec.URL + "/2"}
	update := "/api/v1/callbacks/" + strconv.FormatInt(cb.ID, 10)
	attempts := "/api/v1/transactions/" + strconv.FormatInt(newTxID(), 10) + "/callbacks/attempts"
	enqueue := "/api/v1/transactions/" + strconv.FormatInt(newTxID(), 10) + "/callbacks/enqueue"
	secret := "/api/v1/merchants/" + strconv.Itoa(int(merchant)) + "/callbacks/secret"

	tests := []struct {
		name         string
		who          caller
		method, path string
		body         any
		want         int
	}{
		{"no token", caller{}, http.MethodGet, list, nil, 401},
		{"support may not see the Callbacks page", user(t, access.RoleSupport), http.MethodGet, list, nil, 403},
		{"merchant may not see the Callbacks page", user(t, access.RoleMerchant, merchant), http.MethodGet, list, nil, 403},
		{"merchant admin sees it", user(t, access.RoleMerchantAdmin, merchant), http.MethodGet, list, nil, 200},
		{"merchant admin without Edit Transactions may not add", userWith(t, access.RoleMerchantAdmin, nil, merchant), http.MethodPost, "/api/v1/callbacks", create, 403},
		{"merchant admin without Edit Transactions may not edit", userWith(t, access.RoleMerchantAdmin, nil, merchant), http.MethodPost, update, map[string]any{"maxAttempts": 4}, 403},
		{"merchant admin without Edit Transactions may not delete", userWith(t, access.RoleMerchantAdmin, nil, merchant), http.MethodDelete, update, nil, 403},
		{"support may not add even with Edit Transactions", userWith(t, access.RoleSupport, []string{access.PermEditTransactions}), http.MethodPost, "/api/v1/callbacks", create, 403},
		{"merchant support lists attempts", user(t, access.RoleMerchantSupport, merchant), http.MethodGet, attempts, nil, 200},
		{"support lists attempts", user(t, access.RoleSupport), http.MethodGet, attempts, nil, 200},
		{"no Get Transactions, no attempts", userWith(t, access.RoleMerchantAdmin, nil, merchant), http.MethodGet, attempts, nil, 403},
		{"support may not enqueue", user(t, access.RoleSupport), http.MethodPost, enqueue, nil, 403},
		{"merchant may not enqueue", user(t, access.RoleMerchant, merchant), http.MethodPost, enqueue, nil, 403},
		{"merchant support may not see the secret", user(t, access.RoleMerchantSupport, merchant), http.MethodGet, secret, nil, 403},
		{"support may not see the secret", user(t, access.RoleSupport), http.MethodGet, secret, nil, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if status, raw := call(t, tt.who, svc.HTTPURL, tt.method, tt.path, tt.body); status != tt.want {
				t.Fatalf("%s %s = %d %s, want %d", tt.method, tt.path, status, raw, tt.want)
			}
		})
	}
}

// A URL is enabled at most once per collab (else every transaction went to
// it twice): a second enabled copy is refused with 409 and changes nothing;
// a disabled copy may exist but not be enabled; another collab may use it.
func TestCallbackURLOncePerCollab(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	collab, other := newCollab(t, newMerchant(t)), newCollab(t, newMerchant(t))
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	const msg = "This callback URL is already enabled for the collaboration."

	first := svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL})
	status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks",
		map[string]any{"collabId": collab, "callbackUrl": rec.URL, "transactionTypeId": 1})
	if status != http.StatusConflict || errorMessage(t, raw) != msg {
		t.Fatalf("second enabled copy = %d %s, want 409", status, raw)
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM callback_urls WHERE collab_id = $1`, collab); n != 1 {
		t.Fatalf("%d rows after the refused copy", n)
	}
	var disabled callbackJSON
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callbacks",
		map[string]any{"collabId": collab, "callbackUrl": rec.URL, "isEnabled": false}, &disabled)
	path := "/api/v1/callbacks/" + strconv.FormatInt(disabled.ID, 10)
	status, raw = call(t, admin, svc.HTTPURL, http.MethodPost, path, map[string]any{"isEnabled": true})
	if status != http.StatusConflict || errorMessage(t, raw) != msg {
		t.Fatalf("enabling the copy = %d %s, want 409", status, raw)
	}
	svc.createURL(t, admin, map[string]any{"collabId": other, "callbackUrl": rec.URL})
	// Once the first is disabled, the copy may be enabled.
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callbacks/"+strconv.FormatInt(first.ID, 10), map[string]any{"isEnabled": false}, nil)
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, path, map[string]any{"isEnabled": true}, nil)
}

func TestCallbackURLEdits(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	merchant := newMerchant(t)
	collab, other := newCollab(t, merchant), newCollab(t, newMerchant(t))
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)

	status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks", map[string]any{})
	if status != http.StatusBadRequest || errorMessage(t, raw) != "Collaboration is required. Callback URL is required." {
		t.Fatalf("empty create = %d %s", status, raw)
	}
	for _, n := range []int{0, 13} {
		status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callbacks", map[string]any{"collabId": collab, "callbackUrl": rec.URL, "maxAttempts": n})
		if status != http.StatusBadRequest || errorMessage(t, raw) != "Max attempts must be between 1 and 12." {
			t.Fatalf("create with %d attempts = %d %s", n, status, raw)
		}
	}
	// PascalCase keys, as parts of the console send them.
	var cb callbackJSON
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callbacks",
		`{"CollabId": `+strconv.Itoa(int(collab))+`, "CallbackUrl": "`+rec.URL+`", "MaxAttempts": 12, "TransactionTypeId": 1, "IsEnabled": false}`, &cb)
	if cb.MaxAttempts != 12 || cb.TransactionTypeID == nil || *cb.TransactionTypeID != 1 || cb.IsEnabled {
		t.Fatalf("created %+v", cb)
	}
	ev.urlChange(t, cb.ID, admin)
	path := "/api/v1/callbacks/" + strconv.FormatInt(cb.ID, 10)
	var updated callbackJSON
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, path, map[string]any{"transactionTypeId": 0, "isEnabled": true, "collabId": other}, &updated)
	if updated.TransactionTypeID != nil || !updated.IsEnabled || updated.MaxAttempts != 12 || updated.CollabID != other || updated.MerchantID == merchant {
		t.Fatalf("updated %+v: want every type, enabled, 12 attempts kept, moved to the other collab and merchant", updated)
	}
	change := ev.urlChange(t, cb.ID, admin)
	if change.GetAction() != "Updated" || !strings.Contains(change.GetOldValue(), `"transactionTypeId":1`) ||
		!strings.Contains(change.GetNewValue(), `"transactionTypeId":null`) || change.GetCollabId() != other {
		t.Fatalf("update event %v", change)
	}
	if status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, path, map[string]any{"maxAttempts": 13}); status != http.StatusBadRequest {
		t.Fatalf("update to 13 attempts = %d %s", status, raw)
	}
	if status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, path, map[string]any{"callbackUrl": "gopher://x"}); status != http.StatusBadRequest {
		t.Fatalf("update to a gopher URL = %d %s", status, raw)
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodDelete, path, nil, nil)
	deleted := ev.urlChange(t, cb.ID, admin)
	if deleted.GetAction() != "Deleted" || deleted.GetNewValue() != "null" || deleted.GetChangeId() == change.GetChangeId() {
		t.Fatalf("delete event %v", deleted)
	}
	if status, _ := call(t, admin, svc.HTTPURL, http.MethodDelete, path, nil); status != http.StatusNotFound {
		t.Fatalf("second delete = %d", status)
	}
	var list []callbackJSON
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/collabs/"+strconv.Itoa(int(other))+"/callbacks", nil, &list)
	if len(list) != 0 {
		t.Fatalf("callbacks after delete %+v", list)
	}
}

// TestRedeliveredEventMakesNoSecondDelivery replays the stream since the test
// began to fresh consumers of the same schema, as after lost consumers:
// events already applied come again with their ids and make nothing new.
func TestRedeliveredEventMakesNoSecondDelivery(t *testing.T) {
	t.Parallel()
	schema := "cbtest_" + randomHex(6)
	t.Cleanup(func() {
		servicetest.DeleteConsumers(natsURL, cbnats.Consumers(schema)...)
		dropSchema(schema)
	})
	started := time.Now()
	svc := startServiceIn(t, schema)
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL})
	x := tx{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x)
	waitFor(t, 15*time.Second, "the callback", func() bool { return len(rec.of(x.id)) == 1 })

	_ = svc.Stop() // run's error, if any, fails the test at its end
	servicetest.DeleteConsumers(natsURL, cbnats.Consumers(schema)...)
	again := startServiceIn(t, schema, map[string]string{"PAYGATE_CALLBACK_EVENTS_FROM": started.Add(-time.Second).Format(time.RFC3339)})
	js, err := jetstream.New(ev.nc)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the replay", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		c, err := js.Consumer(ctx, bus.StreamName, cbnats.Consumers(schema)[0])
		if err != nil {
			return false
		}
		info, err := c.Info(ctx)
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0 && info.Delivered.Stream > 0
	})
	time.Sleep(200 * time.Millisecond)
	if n := again.queryInt(t, `SELECT count(*) FROM deliveries WHERE transaction_id = $1`, x.id); n != 1 {
		t.Fatalf("deliveries after the replay = %d, want 1", n)
	}
	if n := len(rec.of(x.id)); n != 1 {
		t.Fatalf("callbacks after the replay = %d, want 1", n)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"PAYGATE_CALLBACK_WORKERS": "0", "PAYGATE_CALLBACK_TIMEOUT": "10s", "PAYGATE_CALLBACK_LEASE": "5s",
		"PAYGATE_CALLBACK_BACKOFF_BASE": "1m", "PAYGATE_CALLBACK_BACKOFF_CAP": "1s", "PAYGATE_CALLBACK_URL_WORKERS": "-1",
	}
	err := run(context.Background(), func(k string) string { return env[k] }, io.Discard)
	if err == nil {
		t.Fatal("run accepted a bad config")
	}
	for _, key := range []string{"PAYGATE_CALLBACK_WORKERS", "PAYGATE_CALLBACK_URL_WORKERS", "PAYGATE_CALLBACK_LEASE", "PAYGATE_CALLBACK_BACKOFF_BASE",
		"PAYGATE_ENCRYPTION_KEY"} {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error %q does not name %s", err, key)
		}
	}
	env = map[string]string{"PAYGATE_CALLBACK_TIMEOUT": "soon"}
	if err := run(context.Background(), func(k string) string { return env[k] }, io.Discard); err == nil || !strings.Contains(err.Error(), "PAYGATE_CALLBACK_TIMEOUT") {
		t.Fatalf("a bad duration: %v", err)
	}
}

// TestNoOpUpdateWritesNothing: a change that changes nothing (an empty body,
// or the values the URL already has) keeps updatedUtc and emits no event, so
// no activity entry is written; the next real change is the next event.
func TestNoOpUpdateWritesNothing(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	collab := newCollab(t, newMerchant(t))
	rec := newReceiver(t)
	admin := user(t, access.RoleAdmin)
	cb := svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL + "/noop"})
	ev.urlChange(t, cb.ID, admin)
	path := "/api/v1/callbacks/" + strconv.FormatInt(cb.ID, 10)
	for _, body := range []map[string]any{{}, {"callbackUrl": cb.CallbackURL, "maxAttempts": cb.MaxAttempts, "isEnabled": cb.IsEnabled}} {
		var out callbackJSON
		must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, path, body, &out)
		if out.UpdatedUtc != cb.UpdatedUtc {
			t.Errorf("no-op update %v moved updatedUtc from %s to %s", body, cb.UpdatedUtc, out.UpdatedUtc)
		}
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, path, map[string]any{"maxAttempts": cb.MaxAttempts + 1}, nil)
	next := ev.urlChange(t, cb.ID, admin)
	if next.GetAction() != "Updated" || !strings.Contains(next.GetNewValue(), strconv.Itoa(int(cb.MaxAttempts+1))) {
		t.Fatalf("the event after two no-op updates is %v, want the real change", next)
	}
}

// TestAttemptsPagingOutOfRangeIs400: page and take outside their documented
// ranges are refused, not clamped; absent ones take their defaults.
func TestAttemptsPagingOutOfRangeIs400(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	admin := user(t, access.RoleAdmin)
	path := "/api/v1/transactions/" + strconv.FormatInt(newTxID(), 10) + "/callbacks/attempts"
	for _, q := range []string{"?take=501", "?take=0", "?take=-1", "?page=0", "?page=-3"} {
		if status, raw := call(t, admin, svc.HTTPURL, http.MethodGet, path+q, nil); status != http.StatusBadRequest {
			t.Errorf("%s: %d %s, want 400", q, status, raw)
		}
	}
	for _, q := range []string{"", "?take=500&page=2", "?take=1"} {
		if status, raw := call(t, admin, svc.HTTPURL, http.MethodGet, path+q, nil); status != http.StatusOK {
			t.Errorf("%s: %d %s, want 200", q, status, raw)
		}
	}
}

// TestListAttemptsOfTransactions reads the attempts of several transactions
// in one internal call, as the gateway's export worker does: by transaction
// id, then oldest first; only the internal token is admitted, and a batch
// must name 1 to 1,000 transactions.
func TestListAttemptsOfTransactions(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	merchant := newMerchant(t)
	collab := newCollab(t, merchant)
	rec := newReceiver(t)
	rec.status.Store(http.StatusInternalServerError)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL + "/hook", "maxAttempts": 2})

	// Each transaction gets two failed attempts; a third has none.
	txs := []tx{
		{id: newTxID(), merchant: merchant, collab: collab, typ: 1, prev: 3, status: 4},
		{id: newTxID(), merchant: merchant, collab: collab, typ: 2, prev: 3, status: -2},
	}
	for _, x := range txs {
		ev.finalize(t, x)
	}
	for _, x := range txs {
		waitFor(t, 15*time.Second, "two attempts", func() bool {
			return svc.queryInt(t, `SELECT count(*) FROM attempts WHERE transaction_id = $1`, x.id) == 2
		})
	}

	cc, err := grpc.NewClient(svc.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	client := callbacksv1.NewCallbacksServiceClient(cc)
	internal := grpc.PerRPCCredentials(authz.InternalCredentials(config.DemoInternalToken))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	ids := []int64{txs[1].id, newTxID(), txs[0].id}
	resp, err := client.ListAttemptsOfTransactions(ctx, &callbacksv1.ListAttemptsOfTransactionsRequest{TransactionIds: ids}, internal)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range resp.GetAttempts() {
		got = append(got, fmt.Sprintf("%d#%d", a.GetTransactionId(), a.GetAttemptNumber()))
		if a.GetCallbackAttemptStatus() == "" || a.GetCallbackUrl() != rec.URL+"/hook" || a.GetResponseCode() != 500 || a.GetRequestBody() == "" {
			t.Errorf("attempt %v", a)
		}
	}
	want := []string{fmt.Sprintf("%d#1", txs[0].id), fmt.Sprintf("%d#2", txs[0].id), fmt.Sprintf("%d#1", txs[1].id), fmt.Sprintf("%d#2", txs[1].id)}
	if !slices.Equal(got, want) {
		t.Errorf("attempts %v, want %v", got, want)
	}

	tooMany := make([]int64, callback.MaxBatchTransactions+1)
	for i := range tooMany {
		tooMany[i] = int64(i + 1)
	}
	refusals := []struct {
		name string
		req  *callbacksv1.ListAttemptsOfTransactionsRequest
		opts []grpc.CallOption
		want codes.Code
	}{
		{"no token", &callbacksv1.ListAttemptsOfTransactionsRequest{TransactionIds: ids}, nil, codes.Unauthenticated},
		{"a user's token", &callbacksv1.ListAttemptsOfTransactionsRequest{TransactionIds: ids},
			[]grpc.CallOption{grpc.PerRPCCredentials(bearer(admin.token))}, codes.PermissionDenied},
		{"a wrong internal token", &callbacksv1.ListAttemptsOfTransactionsRequest{TransactionIds: ids},
			[]grpc.CallOption{grpc.PerRPCCredentials(authz.InternalCredentials("not-the-internal-token"))}, codes.PermissionDenied},
		{"no id", &callbacksv1.ListAttemptsOfTransactionsRequest{}, []grpc.CallOption{internal}, codes.InvalidArgument},
		{"1,001 ids", &callbacksv1.ListAttemptsOfTransactionsRequest{TransactionIds: tooMany}, []grpc.CallOption{internal}, codes.InvalidArgument},
	}
	for _, r := range refusals {
		if _, err := client.ListAttemptsOfTransactions(ctx, r.req, r.opts...); status.Code(err) != r.want {
			t.Errorf("%s: %v, want %v", r.name, err, r.want)
		}
	}
	if _, err := client.ListAttemptsOfTransactions(ctx, &callbacksv1.ListAttemptsOfTransactionsRequest{TransactionIds: tooMany[:callback.MaxBatchTransactions]}, internal); err != nil {
		t.Errorf("1,000 ids: %v", err)
	}
}

// bearer is per-call credentials carrying a user's access token.
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (b bearer) RequireTransportSecurity() bool { return false }
