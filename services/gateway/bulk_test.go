package main

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// The filter-wide bulk actions (docs/contracts-bulk.md) against the real
// gateway: a serving replica that works no runs (PAYGATE_BULK_WORKERS=0)
// and worker replicas started and stopped on its schema.

type bulkCountJSON struct {
	Key    int32  `json:"key"`
	Reason string `json:"reason"`
	Count  string `json:"count"`
}

type dryRunJSON struct {
	Matched    string          `json:"matched"`
	WouldApply string          `json:"wouldApply"`
	Skipped    []bulkCountJSON `json:"skipped"`
	ByStatus   []bulkCountJSON `json:"byStatus"`
	ByCollab   []bulkCountJSON `json:"byCollab"`
	Sample     []struct {
		ID string `json:"id"`
	} `json:"sample"`
	OverCap bool `json:"overCap"`
}

type bulkRunJSON struct {
	ID        string `json:"id"`
	State     string `json:"state"`
	Processed string `json:"processed"`
	Applied   string `json:"applied"`
	Skipped   string `json:"skipped"`
	Total     string `json:"total"`
}

func (g *testGateway) bulkRun(t *testing.T, c *caller, id string) bulkRunJSON {
	t.Helper()
	var out struct{ Run bulkRunJSON }
	c.must(t, http.StatusOK, http.MethodGet, "/api/v1/bulk-actions/"+id, nil, &out)
	return out.Run
}

// waitRun waits (bounded) until the run is in state.
func (g *testGateway) waitRun(t *testing.T, c *caller, id, state string, within time.Duration) bulkRunJSON {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := g.bulkRun(t, c, id)
		if r.State == state {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("bulk run %s is %+v after %s, want %s", id, r, within, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// seedMany inserts n transactions of a merchant in one status.
func (g *testGateway) seedMany(t *testing.T, merchant, collab int32, status, n int, tag string) {
	t.Helper()
	g.exec(t, `INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
			provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, amount, currency,
			destination_amount, destination_currency, provider_transaction_id, created_at, updated_at)
		SELECT 'B-'||$5||'-'||i, $1, $2, 1, 1, 'Seed merchant', 'Seed provider', 'GCash', 'bn-'||$5||'-'||i, 'c', 1, $3,
			10, 'PHP', 10, 'PHP', 'p-'||$5||'-'||i, now() - interval '1 hour', now() - interval '1 hour'
		FROM generate_series(1, $4) AS i`, merchant, collab, status, n, tag)
}

// logsPer answers the most journal entries one transaction of merchant has
// from source, and how many transactions have any.
func (g *testGateway) logsPer(t *testing.T, merchant int32, source string) (most, txs int64) {
	t.Helper()
	most = g.queryInt(t, `SELECT COALESCE(max(n), 0) FROM (SELECT count(*) n FROM transaction_logs l JOIN transactions x ON x.id = l.transaction_id
		WHERE x.merchant_id = $1 AND l.source_context = $2 GROUP BY l.transaction_id) s`, merchant, source)
	txs = g.queryInt(t, `SELECT count(DISTINCT l.transaction_id) FROM transaction_logs l JOIN transactions x ON x.id = l.transaction_id
		WHERE x.merchant_id = $1 AND l.source_context = $2`, merchant, source)
	return most, txs
}

func TestBulkActions(t *testing.T) {
	g := newTestGateway(t, map[string]string{"PAYGATE_BULK_WORKERS": "0", "PAYGATE_BULK_SLICE": "1s",
		"PAYGATE_BULK_RESCUE_AFTER": "1s"})
	admin := g.user(t, access.RoleAdmin)
	m1, m2 := g.newMerchant(t), g.newMerchant(t)
	c1, c2 := g.initialize(t, admin, m1, 1), g.initialize(t, admin, m2, 1)
	g.seedMany(t, m1, c1, 3, 150, "m1p")
	g.seedMany(t, m1, c1, -2, 5, "m1f")
	g.seedMany(t, m2, c2, 3, 20, "m2p")
	filter := map[string]any{"merchantId": m1}
	runs := func() int64 { return g.queryInt(t, `SELECT count(*) FROM bulk_runs`) }

	t.Run("bad input is a 400 naming the field, nothing written", func(t *testing.T) {
		for _, tc := range []struct {
			body map[string]any
			want string
		}{
			{map[string]any{"action": "explode", "filter": filter, "reason": "r", "expectedCount": 1}, "action"},
			{map[string]any{"filter": filter, "reason": "r", "expectedCount": 1}, "action is required"},
			{map[string]any{"action": "markFailed", "filter": filter, "expectedCount": 1}, "reason is required"},
			{map[string]any{"action": "markFailed", "filter": map[string]any{"from": "yesterday"}, "reason": "r"}, "filter: "},
			{map[string]any{"action": "markFailed", "filter": filter, "reason": "r", "expectedCount": -1}, "expectedCount"},
			{map[string]any{"action": "export", "filter": filter, "reason": "r", "expectedCount": 1}, "export is not a run"},
		} {
			before := runs()
			var e struct{ Message string }
			admin.must(t, http.StatusBadRequest, http.MethodPost, "/api/v1/bulk-actions", tc.body, &e)
			if !strings.Contains(e.Message, tc.want) {
				t.Errorf("%v: message %q does not name %q", tc.body, e.Message, tc.want)
			}
			if runs() != before {
				t.Errorf("%v: a refused start wrote a run", tc.body)
			}
		}
		var e struct{ Message string }
		admin.must(t, http.StatusBadRequest, http.MethodGet, "/api/v1/bulk-actions?pageSize=1000", nil, &e)
		if !strings.Contains(e.Message, "pageSize") {
			t.Errorf("pageSize message %q", e.Message)
		}
	})

	t.Run("permission per action", func(t *testing.T) {
		support := g.user(t, access.RoleSupport) // Get Transactions and Files Access, no Edit Transactions
		support.must(t, http.StatusForbidden, http.MethodPost, "/api/v1/bulk-actions/dry-run", map[string]any{"action": "markFailed", "filter": filter}, nil)
		support.must(t, http.StatusForbidden, http.MethodPost, "/api/v1/bulk-actions",
			map[string]any{"action": "markFailed", "filter": filter, "reason": "r", "expectedCount": 150}, nil)
		support.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions/dry-run", map[string]any{"action": "export", "filter": filter}, nil)
	})

	t.Run("scope: a merchant user sees and touches only its merchants", func(t *testing.T) {
		ma := g.user(t, access.RoleMerchantAdmin, m2)
		var d dryRunJSON
		ma.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions/dry-run", map[string]any{"action": "requeuePolling", "filter": map[string]any{}}, &d)
		if d.Matched != "20" || d.WouldApply != "0" {
			// Provider 1 of the demo data does not support polling: skipped.
			t.Logf("dry run of merchant 2: %+v", d)
		}
		if d.Matched != "20" {
			t.Fatalf("a merchant user's dry run matched %s, want its own 20", d.Matched)
		}
		ma.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions/dry-run", map[string]any{"action": "markFailed", "filter": filter}, &d)
		if d.Matched != "0" {
			t.Fatalf("a merchant user's dry run over another merchant matched %s", d.Matched)
		}
	})

	t.Run("cap and a set that grew", func(t *testing.T) {
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/BulkActionCap", 100, nil)
		var d dryRunJSON
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions/dry-run", map[string]any{"action": "markFailed", "filter": filter}, &d)
		if !d.OverCap {
			t.Fatalf("150 over a cap of 100 is not over the cap: %+v", d)
		}
		before := runs()
		admin.must(t, http.StatusUnprocessableEntity, http.MethodPost, "/api/v1/bulk-actions",
			map[string]any{"action": "markFailed", "filter": filter, "reason": "stuck", "expectedCount": 150}, nil)
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/BulkActionCap", 100000, nil)
		admin.must(t, http.StatusConflict, http.MethodPost, "/api/v1/bulk-actions",
			map[string]any{"action": "markFailed", "filter": filter, "reason": "stuck", "expectedCount": 20}, nil)
		if runs() != before {
			t.Fatal("a refused start wrote a run")
		}
	})

	t.Run("dry run and run touch the same set, once each, across a killed worker", func(t *testing.T) {
		var d dryRunJSON
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions/dry-run", map[string]any{"action": "markFailed", "filter": filter}, &d)
		if d.Matched != "155" || d.WouldApply != "150" || len(d.Skipped) != 1 || d.Skipped[0].Reason != "final" || d.Skipped[0].Count != "5" ||
			len(d.ByCollab) != 1 || d.ByCollab[0].Key != c1 || len(d.Sample) != 20 {
			t.Fatalf("dry run = %+v", d)
		}
		// 50 transactions a second: the run lasts about 3 s.
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/BulkActionRate", 50, nil)
		var started struct{ Run bulkRunJSON }
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions",
			map[string]any{"action": "markFailed", "filter": filter, "reason": "stuck at the provider", "expectedCount": 150}, &started)
		id := started.Run.ID
		worker := startGatewayIn(t, g.schema, "http://127.0.0.1:9/jwks", map[string]string{"PAYGATE_BULK_SLICE": "1s", "PAYGATE_BULK_RESCUE_AFTER": "1s"})
		deadline := time.Now().Add(20 * time.Second)
		for {
			r := g.bulkRun(t, admin, id)
			if n, _ := strconv.Atoi(r.Processed); n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the worker did not start run %s: %+v", id, r)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := worker.Stop(); err != nil {
			t.Logf("stop worker: %v", err)
		}
		mid := g.bulkRun(t, admin, id)
		if mid.State == "completed" {
			t.Fatalf("the run completed before the worker was stopped: %+v", mid)
		}
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/BulkActionRate", 2000, nil)
		startGatewayIn(t, g.schema, "http://127.0.0.1:9/jwks", map[string]string{"PAYGATE_BULK_SLICE": "1s", "PAYGATE_BULK_RESCUE_AFTER": "1s"})
		done := g.waitRun(t, admin, id, "completed", 60*time.Second)
		if done.Applied != d.WouldApply || done.Skipped != "5" || done.Processed != d.Matched {
			t.Fatalf("run = %+v, dry run said %+v", done, d)
		}
		applied := g.queryInt(t, `SELECT count(*) FROM bulk_run_items i JOIN transactions x ON x.id = i.transaction_id
			WHERE i.run_id = $1 AND i.outcome = 'applied' AND x.merchant_id = $2 AND x.status = -1 AND x.provider_transaction_id LIKE 'p-m1p-%'`, id, m1)
		if applied != 150 {
			t.Fatalf("%d of the dry run's 150 transactions were applied", applied)
		}
		if most, txs := g.logsPer(t, m1, "bulk.MarkFailed"); most != 1 || txs != 150 {
			t.Fatalf("bulk journal entries: at most %d per transaction over %d transactions, want 1 over 150", most, txs)
		}
		if most, txs := g.logsPer(t, m2, "bulk.MarkFailed"); most != 0 || txs != 0 {
			t.Fatal("the run touched another merchant")
		}
		if n := g.queryInt(t, `SELECT count(*) FROM transactions WHERE merchant_id = $1 AND status = 3`, m2); n != 20 {
			t.Fatalf("merchant 2 has %d pending, want 20", n)
		}
		// Finished: pause, resume and cancel are conflicts.
		admin.must(t, http.StatusConflict, http.MethodPost, "/api/v1/bulk-actions/"+id+"/pause", map[string]any{}, nil)
		var list struct{ Runs []bulkRunJSON }
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/bulk-actions?state=completed", nil, &list)
		if len(list.Runs) == 0 || list.Runs[0].ID != id {
			t.Fatalf("list = %+v", list)
		}
		ma := g.user(t, access.RoleMerchantAdmin, m2)
		ma.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/bulk-actions/"+id, nil, nil)
	})

	t.Run("pause, resume and cancel", func(t *testing.T) {
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/BulkActionRate", 10, nil)
		f2 := map[string]any{"merchantId": m2}
		var started struct{ Run bulkRunJSON }
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions",
			map[string]any{"action": "cancelCallbacks", "filter": f2, "reason": "merchant asked", "expectedCount": 20}, &started)
		id := started.Run.ID
		var out struct{ Run bulkRunJSON }
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions/"+id+"/pause", map[string]any{}, &out)
		if out.Run.State != "paused" {
			t.Fatalf("paused run = %+v", out.Run)
		}
		admin.must(t, http.StatusConflict, http.MethodPost, "/api/v1/bulk-actions/"+id+"/pause", map[string]any{}, nil)
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions/"+id+"/resume", map[string]any{}, &out)
		if out.Run.State != "queued" {
			t.Fatalf("resumed run = %+v", out.Run)
		}
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/bulk-actions/"+id+"/cancel", map[string]any{}, &out)
		if out.Run.State != "cancelled" {
			t.Fatalf("cancelled run = %+v", out.Run)
		}
		admin.must(t, http.StatusConflict, http.MethodPost, "/api/v1/bulk-actions/"+id+"/resume", map[string]any{}, nil)
	})

	t.Run("an approval policy's count threshold: starting asks for confirmation", func(t *testing.T) {
		c := g.user(t, access.RoleAdmin)
		c.token = g.issuer.Token(t, authztest.User{ID: c.id, Username: c.name, Roles: []string{access.RoleAdmin},
			Permissions: grants[access.RoleAdmin], Confirm: []string{"bulk.start"}})
		before := runs()
		d, _ := c.ask(t, http.MethodPost, "/api/v1/bulk-actions",
			map[string]any{"action": "cancelCallbacks", "filter": map[string]any{"merchantId": m2}, "reason": "merchant asked", "expectedCount": 20})
		if d.Action != "bulk.start" {
			t.Fatalf("described action %q", d.Action)
		}
		if runs() != before {
			t.Fatal("a start waiting for confirmation wrote a run")
		}
		_ = fmt.Sprint(d.Values["expectedCount"])
	})
}
