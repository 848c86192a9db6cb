package main

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/access"
)

// The bulk retries of failed deliveries (docs/contracts-bulk.md).
func TestBulkRetryOfFailedDeliveries(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	ev := connect(t)
	mA, mB := newMerchant(t), newMerchant(t)
	cA, cB := newCollab(t, mA), newCollab(t, mB)
	rec := newReceiver(t)
	rec.status.Store(http.StatusInternalServerError)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": cA, "callbackUrl": rec.URL, "maxAttempts": 1})
	svc.createURL(t, admin, map[string]any{"collabId": cB, "callbackUrl": rec.URL + "/b", "maxAttempts": 1})
	var aIDs []int64
	for i := 0; i < 5; i++ {
		x := tx{id: newTxID(), merchant: mA, collab: cA, typ: 1, prev: 3, status: 4}
		aIDs = append(aIDs, x.id)
		ev.finalize(t, x)
	}
	var bIDs []int64
	for i := 0; i < 2; i++ {
		x := tx{id: newTxID(), merchant: mB, collab: cB, typ: 1, prev: 3, status: -2}
		bIDs = append(bIDs, x.id)
		ev.finalize(t, x)
	}
	failed := func(m int32) int64 {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE merchant_id = $1 AND status = 'failed'`, m)
	}
	waitFor(t, 20*time.Second, "seven failed deliveries", func() bool { return failed(mA) == 5 && failed(mB) == 2 })
	runs := func() int64 { return svc.queryInt(t, `SELECT count(*) FROM callback_retries`) }

	type dry struct {
		Matched    string `json:"matched"`
		WouldRetry string `json:"wouldRetry"`
		Sample     []struct {
			TransactionID string `json:"transactionId"`
		} `json:"sample"`
	}
	filterA := map[string]any{"merchantId": mA, "from": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "attemptStatus": "answered"}

	// Bad input: a 400 naming the field, nothing written.
	for _, tc := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"filter": map[string]any{"from": "yesterday"}, "reason": "r", "expectedCount": 1}, "filter.from"},
		{map[string]any{"filter": map[string]any{"attemptStatus": "lost"}, "reason": "r", "expectedCount": 1}, "filter.attemptStatus"},
		{map[string]any{"filter": map[string]any{"responseCode": 1000}, "reason": "r", "expectedCount": 1}, "filter.responseCode"},
		{map[string]any{"filter": filterA, "expectedCount": 5}, "reason is required"},
	} {
		status, raw := call(t, admin, svc.HTTPURL, http.MethodPost, "/api/v1/callback-retries", tc.body)
		if status != http.StatusBadRequest || !strings.Contains(errorMessage(t, raw), tc.want) {
			t.Errorf("%v = %d %s, want 400 naming %s", tc.body, status, raw, tc.want)
		}
	}
	if runs() != 0 {
		t.Fatal("a refused start wrote a run")
	}

	// Scope: merchant B's admin sees none of A's failures.
	mbAdmin := user(t, access.RoleMerchantAdmin, mB)
	var d dry
	must(t, mbAdmin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callback-retries/dry-run", map[string]any{"filter": filterA}, &d)
	if d.Matched != "0" {
		t.Fatalf("another merchant's dry run matched %s", d.Matched)
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callback-retries/dry-run", map[string]any{"filter": filterA}, &d)
	if d.Matched != "5" || d.WouldRetry != "5" || len(d.Sample) != 5 {
		t.Fatalf("dry run = %+v", d)
	}

	// Recover since T: the receiver is back, the run sends each failed
	// delivery of merchant A once more, and only those.
	rec.status.Store(http.StatusOK)
	var started struct {
		Run struct {
			ID string `json:"id"`
		} `json:"run"`
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callback-retries",
		map[string]any{"filter": filterA, "reason": "receiver was down", "expectedCount": 5}, &started)
	waitFor(t, 30*time.Second, "the run to complete", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM callback_retries WHERE id = $1 AND state = 'completed'`, started.Run.ID) == 1
	})
	waitFor(t, 20*time.Second, "the retried deliveries", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE merchant_id = $1 AND status = 'delivered'`, mA) == 5
	})
	for _, id := range aIDs {
		if n := len(rec.of(id)); n != 2 {
			t.Fatalf("transaction %d was sent %d times, want 2 (the failure and one retry)", id, n)
		}
	}
	for _, id := range bIDs {
		if n := len(rec.of(id)); n != 1 {
			t.Fatalf("merchant B's transaction %d was sent %d times", id, n)
		}
	}
	if n := svc.queryInt(t, `SELECT count(*) FROM callback_retry_items WHERE run_id = $1 AND outcome = 'retried'`, started.Run.ID); n != 5 {
		t.Fatalf("%d items retried", n)
	}
	var got struct {
		Run struct {
			State   string `json:"state"`
			Retried string `json:"retried"`
		} `json:"run"`
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/callback-retries/"+started.Run.ID, nil, &got)
	if got.Run.State != "completed" || got.Run.Retried != "5" {
		t.Fatalf("run = %+v", got.Run)
	}
	must(t, mbAdmin, svc.HTTPURL, http.StatusNotFound, http.MethodGet, "/api/v1/callback-retries/"+started.Run.ID, nil, nil)
	must(t, admin, svc.HTTPURL, http.StatusConflict, http.MethodPost, "/api/v1/callback-retries/"+started.Run.ID+"/pause", map[string]any{}, nil)

	// The gateway's bulk resend: one idempotency key queues its deliveries once.
	enqueue := func(id int64, key string) string {
		var out struct {
			Queued int32 `json:"queued"`
		}
		must(t, admin, svc.HTTPURL, http.StatusAccepted, http.MethodPost, "/api/v1/transactions/"+strconv.FormatInt(id, 10)+"/callbacks/enqueue?idempotencyKey="+key,
			nil, &out)
		return strconv.Itoa(int(out.Queued))
	}
	if a, b := enqueue(bIDs[0], "bulk:1:"+strconv.FormatInt(bIDs[0], 10)), enqueue(bIDs[0], "bulk:1:"+strconv.FormatInt(bIDs[0], 10)); a != "1" || b != "0" {
		t.Fatalf("enqueue with one key twice queued %s then %s, want 1 then 0", a, b)
	}
}

// A bulk retry whose worker stops mid-run is finished by another, and no
// delivery is retried twice: the items are written in the batch's
// transaction with the deliveries it requeues (docs/contracts-bulk.md).
func TestBulkRetryResumesAfterItsWorkerStops(t *testing.T) {
	t.Parallel()
	// No per-URL cap: the 120 failures the run retries come from one burst,
	// every delivery attempted before the URL's breaker opens. With the cap
	// (16 by default) the rest would wait, pending, for the breaker's probes.
	svc := startService(t, map[string]string{"PAYGATE_CALLBACK_RETRY_WORKERS": "0", "PAYGATE_CALLBACK_URL_WORKERS": "0"})
	ev := connect(t)
	m := newMerchant(t)
	c := newCollab(t, m)
	rec := newReceiver(t)
	rec.status.Store(http.StatusInternalServerError)
	admin := user(t, access.RoleAdmin)
	svc.createURL(t, admin, map[string]any{"collabId": c, "callbackUrl": rec.URL, "maxAttempts": 1})
	const n = 120
	ids := make([]int64, 0, n)
	for i := 0; i < n; i++ {
		x := tx{id: newTxID(), merchant: m, collab: c, typ: 1, prev: 3, status: 4}
		ids = append(ids, x.id)
		ev.finalize(t, x)
	}
	waitFor(t, 60*time.Second, "the failed deliveries", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE merchant_id = $1 AND status = 'failed'`, m) == n
	})
	rec.status.Store(http.StatusOK)

	filter := map[string]any{"merchantId": m}
	var started struct {
		Run struct {
			ID string `json:"id"`
		} `json:"run"`
	}
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callback-retries",
		map[string]any{"filter": filter, "reason": "receiver back", "expectedCount": n}, &started)
	id := started.Run.ID
	items := func() int64 {
		return svc.queryInt(t, `SELECT count(*) FROM callback_retry_items WHERE run_id = $1`, id)
	}
	// A slow worker (20 deliveries a second: six seconds for the run),
	// stopped once it has done some of it.
	workerEnv := map[string]string{"PAYGATE_CALLBACK_RETRY_RATE": "20", "PAYGATE_CALLBACK_RETRY_SLICE": "1s",
		"PAYGATE_CALLBACK_RETRY_RESCUE_AFTER": "2s"}
	worker := startServiceIn(t, svc.schema, workerEnv)
	waitFor(t, 30*time.Second, "the worker to start the run", func() bool { return items() > 0 })
	if err := worker.Stop(); err != nil {
		t.Logf("stop worker: %v", err)
	}
	mid := items()
	if mid >= n {
		t.Fatalf("the run finished (%d items) before its worker was stopped", mid)
	}
	t.Logf("stopped the worker after %d of %d deliveries", mid, n)

	workerEnv["PAYGATE_CALLBACK_RETRY_RATE"] = "2000"
	startServiceIn(t, svc.schema, workerEnv)
	waitFor(t, 60*time.Second, "the run to complete", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM callback_retries WHERE id = $1 AND state = 'completed'`, id) == 1
	})
	if got := items(); got != n {
		t.Fatalf("%d items after the run, want %d", got, n)
	}
	if dup := svc.queryInt(t, `SELECT count(*) FROM (SELECT delivery_id FROM callback_retry_items WHERE run_id = $1
		GROUP BY delivery_id HAVING count(*) > 1) d`, id); dup != 0 {
		t.Fatalf("%d deliveries have two items", dup)
	}
	waitFor(t, 30*time.Second, "every retried delivery delivered", func() bool {
		return svc.queryInt(t, `SELECT count(*) FROM deliveries WHERE merchant_id = $1 AND status = 'delivered'`, m) == n
	})
	// Let any stray second send arrive before counting.
	time.Sleep(500 * time.Millisecond)
	for _, txID := range ids {
		if got := len(rec.of(txID)); got != 2 {
			t.Fatalf("transaction %d was sent %d times, want 2 (the failure and one retry)", txID, got)
		}
	}
}
