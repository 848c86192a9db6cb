package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/radar"
	"github.com/paygate/paygate/services/internal/access"
)

// The radar tests (docs/contracts-radar.md) put non-final transactions in
// the gateway's table directly, at chosen ages, and point the demo
// providers at a real HTTP server standing in for the external provider,
// which answers each status inquiry from a table and counts them.

type radarSLAJSON struct {
	ID                  int64  `json:"id,string"`
	ProviderID          int32  `json:"providerId"`
	PayTypeID           int32  `json:"payTypeId"`
	TransactionType     int32  `json:"transactionType"`
	OverdueAfterSeconds int64  `json:"overdueAfterSeconds,string"`
	IsDefault           bool   `json:"isDefault"`
	UpdatedBy           string `json:"updatedBy"`
}

type radarRowJSON struct {
	ID              int64  `json:"id,string"`
	MerchantID      int32  `json:"merchantId"`
	ProviderID      int32  `json:"providerId"`
	PayTypeID       int32  `json:"payTypeId"`
	TransactionType int32  `json:"transactionType"`
	Status          int32  `json:"status"`
	StatusName      string `json:"statusName"`
	CreatedUtc      string `json:"createdUtc"`
	AgeSeconds      int64  `json:"ageSeconds,string"`
	SLAID           int64  `json:"slaId,string"`
	SLASeconds      int64  `json:"slaSeconds,string"`
	LateSeconds     int64  `json:"lateSeconds,string"`
	ProviderStatus  struct {
		State   string `json:"state"`
		Message string `json:"message"`
		Cached  bool   `json:"cached"`
	} `json:"providerStatus"`
	Mismatch bool `json:"mismatch"`
}

type radarPageJSON struct {
	Transactions  []radarRowJSON `json:"transactions"`
	NextPageToken string         `json:"nextPageToken"`
	AsOf          string         `json:"asOf"`
}

// standInProvider answers GET /<segment>/payments/<tid> from answers:
// a status word, "http500" or "stall".
type standInProvider struct {
	mu      sync.Mutex
	answers map[string]string
	calls   map[string]int
}

func (p *standInProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, tid, ok := strings.Cut(r.URL.Path, "/payments/")
	if !ok || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	p.mu.Lock()
	p.calls[tid]++
	answer := p.answers[tid]
	p.mu.Unlock()
	switch answer {
	case "http500":
		http.Error(w, "boom", http.StatusInternalServerError)
	case "stall":
		select {
		case <-r.Context().Done():
		case <-time.After(8 * time.Second):
		}
	default:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"providerTransactionId": tid, "status": answer,
			"message": "The provider says " + answer + "."})
	}
}

func (p *standInProvider) count(tid string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls[tid]
}

// radarEnv is a gateway whose providers are the stand-in, with two
// merchants: m1 on GoVip (1, GCash and Maya), m2 on FbPay (3, GCash and
// Bank Transfer).
type radarEnv struct {
	*testGateway
	provider *standInProvider
	admin    *caller
	m1, m2   int32
	c1, c2   int32
	seq      int
}

func newRadarEnv(t *testing.T) *radarEnv {
	t.Helper()
	p := &standInProvider{answers: map[string]string{}, calls: map[string]int{}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	g := newTestGateway(t, map[string]string{"PAYGATE_SANDBOX_URL": srv.URL})
	e := &radarEnv{testGateway: g, provider: p, admin: g.user(t, access.RoleAdmin)}
	e.m1, e.m2 = g.newMerchant(t), g.newMerchant(t)
	e.c1 = g.initialize(t, e.admin, e.m1, 1, 1, 2)
	e.c2 = g.initialize(t, e.admin, e.m2, 3, 1, 4)
	return e
}

// insert adds a transaction of merchant m (its collab with provider) at
// status, created age ago, with the provider's id tid ("" for none).
func (e *radarEnv) insert(t *testing.T, m int32, provider, payType int32, typ int16, status int16, age time.Duration, tid string) int64 {
	t.Helper()
	e.seq++
	collab := e.c1
	if m == e.m2 {
		collab = e.c2
	}
	var ptid *string
	if tid != "" {
		ptid = &tid
	}
	created := time.Now().Add(-age)
	var id int64
	err := e.pool.QueryRow(context.Background(), `
		INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name, provider_name,
			pay_type_name, nonce, transaction_type, status, amount, currency, destination_amount, destination_currency,
			provider_transaction_id, created_at, updated_at, recovery_attempts)
		VALUES ($1, $2, $3, $4, $5, 'M', 'P', 'PT', $1, $6, $7, 10, 'PHP', 10, 'PHP', $8, $9, $9, 100)
		RETURNING id`, fmt.Sprintf("radar-%d-%d", time.Now().UnixNano(), e.seq), m, collab, provider, payType, typ, status,
		ptid, created).Scan(&id)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func (e *radarEnv) setSLA(t *testing.T, provider, payType, typ int32, seconds int64) radarSLAJSON {
	t.Helper()
	var out struct {
		Sla radarSLAJSON `json:"sla"`
	}
	e.admin.must(t, http.StatusOK, http.MethodPut, "/api/v1/radar/slas", map[string]any{"providerId": provider,
		"payTypeId": payType, "transactionType": typ, "overdueAfterSeconds": seconds}, &out)
	return out.Sla
}

func (e *radarEnv) slas(t *testing.T) []radarSLAJSON {
	t.Helper()
	var out struct {
		Slas []radarSLAJSON `json:"slas"`
	}
	e.admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/radar/slas", nil, &out)
	return out.Slas
}

// walk reads every page of the radar with query q.
func walk(t *testing.T, c *caller, q url.Values, between func()) []radarRowJSON {
	t.Helper()
	var all []radarRowJSON
	asOf := ""
	for {
		var p radarPageJSON
		c.must(t, http.StatusOK, http.MethodGet, "/api/v1/radar/transactions?"+q.Encode(), nil, &p)
		if asOf == "" {
			asOf = p.AsOf
		} else if p.AsOf != asOf {
			t.Fatalf("asOf moved from %s to %s during a walk", asOf, p.AsOf)
		}
		all = append(all, p.Transactions...)
		if p.NextPageToken == "" {
			return all
		}
		q.Set("pageToken", p.NextPageToken)
		if between != nil {
			between()
		}
	}
}

func radarIDs(rows []radarRowJSON) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

func TestRadar(t *testing.T) {
	t.Parallel()
	e := newRadarEnv(t)
	const h = time.Hour
	// GCash 1, Maya 2, Bank Transfer 4; deposits 1, withdrawals 2.
	t.Run("the most specific SLA wins", func(t *testing.T) {
		e.setSLA(t, 1, 1, 1, 120)  // weight 7
		e.setSLA(t, 1, 1, 0, 300)  // 6
		e.setSLA(t, 1, 0, 1, 200)  // 5
		e.setSLA(t, 1, 0, 0, 600)  // 4
		e.setSLA(t, 0, 2, 2, 900)  // 3
		e.setSLA(t, 0, 4, 0, 1200) // 2
		e.setSLA(t, 0, 0, 1, 1000) // 1
		cases := []struct {
			provider, payType int32
			typ               int16
			want              int64
		}{
			{1, 1, 1, 120}, {1, 1, 2, 300}, {1, 2, 1, 200}, {1, 2, 2, 600}, {3, 4, 1, 1200},
			{3, 4, 2, 1200}, {3, 1, 1, 1000}, {3, 1, 2, 1800},
		}
		want := map[int64]int64{}
		for _, c := range cases {
			m := e.m1
			if c.provider == 3 {
				m = e.m2
			}
			want[e.insert(t, m, c.provider, c.payType, c.typ, 3, 2*h, "")] = c.want
		}
		// 0,2 and 0,2,2 for a FbPay Maya withdrawal: weight 3 beats the default.
		for _, r := range walk(t, e.admin, url.Values{"take": {"100"}}, nil) {
			if w, ok := want[r.ID]; ok {
				if r.SLASeconds != w {
					t.Errorf("transaction %d (provider %d, pay type %d, type %d): SLA %d s, want %d s", r.ID, r.ProviderID,
						r.PayTypeID, r.TransactionType, r.SLASeconds, w)
				}
				if r.LateSeconds != r.AgeSeconds-r.SLASeconds || r.AgeSeconds < 7190 {
					t.Errorf("transaction %d: age %d, late %d", r.ID, r.AgeSeconds, r.LateSeconds)
				}
				delete(want, r.ID)
			}
		}
		if len(want) != 0 {
			t.Errorf("missing from the radar: %v", want)
		}
		// The domain's Winner agrees with the SQL on the stored rows.
		var slas []radar.SLA
		for _, s := range e.slas(t) {
			slas = append(slas, radar.SLA{ID: s.ID, ProviderID: s.ProviderID, PayTypeID: s.PayTypeID,
				Type: int16(s.TransactionType), Seconds: s.OverdueAfterSeconds})
		}
		for _, c := range cases {
			if w, _ := radar.Winner(slas, c.provider, c.payType, c.typ); w.Seconds != c.want {
				t.Errorf("Winner(%d, %d, %d) = %d s, want %d s", c.provider, c.payType, c.typ, w.Seconds, c.want)
			}
		}
	})

	t.Run("the overdue set is the SQL's, paged stably", func(t *testing.T) {
		// Ages around each SLA, statuses final and not.
		for i, age := range []time.Duration{30 * time.Second, 150 * time.Second, 250 * time.Second, 400 * time.Second,
			700 * time.Second, 1100 * time.Second, 1900 * time.Second, 3 * h, 26 * h} {
			for _, st := range []int16{0, 2, 3, 4, -1, -3, 300} {
				e.insert(t, e.m1, 1, int32(1+i%2), int16(1+i%2), st, age, "")
				e.insert(t, e.m2, 3, int32([]int{1, 4}[i%2]), int16(2-i%2), st, age, "")
			}
		}
		var slas []radar.SLA
		for _, s := range e.slas(t) {
			slas = append(slas, radar.SLA{ProviderID: s.ProviderID, PayTypeID: s.PayTypeID, Type: int16(s.TransactionType),
				Seconds: s.OverdueAfterSeconds})
		}
		first := walk(t, e.admin, url.Values{"take": {"7"}}, nil)
		asOf := time.Now()
		if len(first) > 0 {
			var p radarPageJSON
			e.admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/radar/transactions?take=1", nil, &p)
			asOf, _ = time.Parse(time.RFC3339Nano, p.AsOf)
		}
		// The plain SQL: every non-final row, with the SLA the domain's
		// Winner gives it, overdue at asOf.
		rows, err := e.pool.Query(context.Background(), `SELECT id, provider_id, pay_type_id, transaction_type, created_at
			FROM transactions WHERE NOT (status = 4 OR status BETWEEN -6 AND -1) ORDER BY created_at, id`)
		if err != nil {
			t.Fatal(err)
		}
		var want []int64
		for rows.Next() {
			var id int64
			var p, pt int32
			var typ int16
			var created time.Time
			if err := rows.Scan(&id, &p, &pt, &typ, &created); err != nil {
				t.Fatal(err)
			}
			w, _ := radar.Winner(slas, p, pt, typ)
			// Rows within a second of their SLA may move between asOf and the first walk.
			if d := asOf.Sub(created) - time.Duration(w.Seconds)*time.Second; d >= 2*time.Second {
				want = append(want, id)
			} else if d > -2*time.Second {
				t.Fatalf("row %d is too close to its SLA for this test", id)
			}
		}
		if got := radarIDs(first); !slices.Equal(got, want) {
			t.Fatalf("radar %v\nwant  %v", got, want)
		}
		// Stable while rows come and go: every row once, in order.
		added := int64(0)
		var finished int64
		got := walk(t, e.admin, url.Values{"take": {"5"}}, func() {
			if added == 0 {
				added = e.insert(t, e.m1, 1, 1, 1, 3, 50*h, "") // older than the cursor: the next walk sees it
				finished = want[len(want)-1]
				e.exec(t, `UPDATE transactions SET status = 4 WHERE id = $1`, finished)
			}
		})
		seen := map[int64]bool{}
		for i, r := range got {
			if seen[r.ID] {
				t.Fatalf("transaction %d twice in one walk", r.ID)
			}
			seen[r.ID] = true
			if i > 0 && r.CreatedUtc < got[i-1].CreatedUtc {
				t.Fatalf("not oldest first at %d: %s after %s", i, r.CreatedUtc, got[i-1].CreatedUtc)
			}
		}
		if want := slices.DeleteFunc(slices.Clone(want), func(id int64) bool { return id == finished }); !slices.Equal(radarIDs(got), want) {
			t.Fatalf("walk while changing %v\nwant %v", radarIDs(got), want)
		}
		if again := radarIDs(walk(t, e.admin, url.Values{}, nil)); again[0] != added || slices.Contains(again, finished) {
			t.Fatalf("next walk %v: want %d first and %d gone", again, added, finished)
		}
	})

	t.Run("scope", func(t *testing.T) {
		mine := e.user(t, access.RoleMerchantAdmin, e.m1)
		for _, r := range walk(t, mine, url.Values{"take": {"100"}}, nil) {
			if r.MerchantID != e.m1 {
				t.Fatalf("merchant user of %d sees transaction %d of merchant %d", e.m1, r.ID, r.MerchantID)
			}
		}
		if len(walk(t, e.admin, url.Values{"merchantId": {strconv.Itoa(int(e.m2))}}, nil)) == 0 {
			t.Fatal("the admin sees nothing of merchant 2")
		}
		for _, q := range []string{"merchantId=" + strconv.Itoa(int(e.m2)), "collabId=" + strconv.Itoa(int(e.c2)),
			"merchantId=99999", "collabId=99999"} {
			mine.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/radar/transactions?"+q, nil, nil)
		}
		for _, r := range walk(t, e.admin, url.Values{"collabId": {strconv.Itoa(int(e.c2))}, "transactionType": {"2"},
			"providerId": {"3"}}, nil) {
			if r.MerchantID != e.m2 || r.TransactionType != 2 || r.ProviderID != 3 {
				t.Fatalf("filtered row %+v", r)
			}
		}
		nobody := e.user(t, access.RoleMerchantAdmin)
		if rows := walk(t, nobody, url.Values{}, nil); len(rows) != 0 {
			t.Fatalf("a merchant user without merchants sees %d rows", len(rows))
		}
		// Reading needs Get Transactions; changing SLAs platformSettings.
		mine.must(t, http.StatusForbidden, http.MethodPut, "/api/v1/radar/slas",
			map[string]any{"overdueAfterSeconds": 60}, nil)
		e.user(t, access.RoleMerchantSupport, e.m1).must(t, http.StatusOK, http.MethodGet, "/api/v1/radar/slas", nil, nil)
	})

	t.Run("provider status, cached", func(t *testing.T) {
		m := e.newMerchant(t)
		e.initialize(t, e.admin, m, 19, 1) // RollingPay: the only transactions of this merchant
		e.c1, e.m1 = e.collabID(t, m, 19), m
		e.provider.answers["tid-ok"], e.provider.answers["tid-pending"] = "success", "pending"
		e.provider.answers["tid-500"], e.provider.answers["tid-slow"] = "http500", "stall"
		e.provider.answers["tid-odd"] = "weird"
		want := map[int64]struct {
			state, message string
			mismatch       bool
		}{
			e.insert(t, m, 19, 1, 1, 3, 5*h, "tid-ok"):        {"success", "The provider says success.", true},
			e.insert(t, m, 19, 1, 1, 3, 5*h-1, "tid-pending"): {"pending", "The provider says pending.", false},
			e.insert(t, m, 19, 1, 1, 2, 5*h-2, "tid-500"):     {"error", "The provider answered HTTP 500.", false},
			e.insert(t, m, 19, 1, 1, 3, 5*h-3, "tid-slow"):    {"error", "The provider did not answer within 5s.", false},
			e.insert(t, m, 19, 1, 1, 3, 5*h-4, "tid-odd"):     {"error", `The provider answered with an unknown status "weird".`, false},
			e.insert(t, m, 19, 1, 1, 0, 5*h-5, ""): {"not_asked",
				"The provider has not given this transaction an id yet, so it cannot be asked.", false},
		}
		q := "/api/v1/radar/transactions?merchantId=" + strconv.Itoa(int(m))
		check := func(cached bool, refresh string) {
			t.Helper()
			var p radarPageJSON
			start := time.Now()
			e.admin.must(t, http.StatusOK, http.MethodGet, q+refresh, nil, &p)
			if d := time.Since(start); !cached && d > 7*time.Second {
				t.Errorf("the page took %s: inquiries must run at once, each within 5s", d)
			}
			if len(p.Transactions) != len(want) {
				t.Fatalf("%d rows, want %d", len(p.Transactions), len(want))
			}
			for _, r := range p.Transactions {
				w := want[r.ID]
				ps := r.ProviderStatus
				if ps.State != w.state || ps.Message != w.message || r.Mismatch != w.mismatch {
					t.Errorf("transaction %d: %+v mismatch %v, want %+v", r.ID, ps, r.Mismatch, w)
				}
				if ps.State != "not_asked" && ps.Cached != cached {
					t.Errorf("transaction %d: cached %v, want %v", r.ID, ps.Cached, cached)
				}
			}
		}
		check(false, "")
		for _, tid := range []string{"tid-ok", "tid-pending", "tid-500", "tid-slow", "tid-odd"} {
			if n := e.provider.count(tid); n != 1 {
				t.Errorf("%s asked %d times, want 1", tid, n)
			}
		}
		check(true, "")
		if n := e.provider.count("tid-ok"); n != 1 {
			t.Errorf("a cached answer asked the provider again (%d calls)", n)
		}
		delete(e.provider.answers, "tid-slow")
		e.provider.answers["tid-slow"] = "stall"
		check(false, "&refreshProviderStatus=true")
		if n := e.provider.count("tid-ok"); n != 2 {
			t.Errorf("refreshProviderStatus: %d calls, want 2", n)
		}
		// Nothing written: the inquiry is no poll.
		if n := e.queryInt(t, `SELECT count(*) FROM transaction_logs l JOIN transactions t ON t.id = l.transaction_id
			WHERE t.merchant_id = $1`, m); n != 0 {
			t.Errorf("the inquiries wrote %d journal entries", n)
		}
	})

	t.Run("bad input is a 400 naming the field, nothing written", func(t *testing.T) {
		before := e.queryInt(t, `SELECT count(*) + sum(overdue_after_seconds) FROM radar_slas`)
		e.admin = e.user(t, access.RoleAdmin) // a caller of its own: only its changes count
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"overdueAfterSeconds": 0}, "overdueAfterSeconds"},
			{map[string]any{"overdueAfterSeconds": 2592001}, "overdueAfterSeconds"},
			{map[string]any{"overdueAfterSeconds": 60, "transactionType": 3}, "transactionType"},
			{map[string]any{"overdueAfterSeconds": 60, "providerId": 999}, "providerId"},
			{map[string]any{"overdueAfterSeconds": 60, "payTypeId": 999}, "payTypeId"},
			{map[string]any{"overdueAfterSeconds": "soon"}, "overdueAfterSeconds"},
		} {
			if msg := e.admin.refused(t, http.StatusBadRequest, 0, http.MethodPut, "/api/v1/radar/slas", c.body); !strings.Contains(msg, c.field) {
				t.Errorf("%v: %q does not name %s", c.body, msg, c.field)
			}
		}
		for q, field := range map[string]string{"take=0": "take", "take=101": "take", "transactionType=3": "transactionType",
			"pageToken=garbage": "pageToken", "pageToken=" + url.QueryEscape("MS4yLjM"): "pageToken"} {
			if msg := e.admin.refused(t, http.StatusBadRequest, 0, http.MethodGet, "/api/v1/radar/transactions?"+q, nil); !strings.Contains(msg, field) {
				t.Errorf("%s: %q does not name %s", q, msg, field)
			}
		}
		if after := e.queryInt(t, `SELECT count(*) + sum(overdue_after_seconds) FROM radar_slas`); after != before {
			t.Errorf("refused changes changed radar_slas")
		}
	})

	t.Run("changes are in the activity log; the default stays", func(t *testing.T) {
		e.admin = e.user(t, access.RoleAdmin)
		s := e.setSLA(t, 3, 4, 2, 240)
		s2 := e.setSLA(t, 3, 4, 2, 300)
		if s2.ID != s.ID || s2.OverdueAfterSeconds != 300 || s2.UpdatedBy != e.admin.name {
			t.Fatalf("changed %+v, was %+v", s2, s)
		}
		e.admin.must(t, http.StatusOK, http.MethodDelete, "/api/v1/radar/slas/"+strconv.FormatInt(s.ID, 10), nil, nil)
		rows, _ := e.admin.expectChanges(t, 3)
		wantMsgs := []string{"Radar SLA for FbPay, Bank Transfer, withdrawals set to 4m.",
			"Radar SLA for FbPay, Bank Transfer, withdrawals set to 5m.", "Radar SLA for FbPay, Bank Transfer, withdrawals deleted."}
		for i, r := range rows {
			if r.Message != wantMsgs[i] || r.ActionType != "Settings" || r.ProviderID != 3 || r.Channel != "Cash Out" {
				t.Errorf("entry %d: %+v", i, r)
			}
		}
		if rows[0].OldValue != "null" || !strings.Contains(rows[1].OldValue, `"overdueAfterSeconds": 240`) ||
			rows[2].NewValue != "null" {
			t.Errorf("old and new values: %+v", rows)
		}
		var def radarSLAJSON
		for _, s := range e.slas(t) {
			if s.IsDefault {
				def = s
			}
		}
		if def.ID == 0 || e.slas(t)[0].ID != def.ID {
			t.Fatalf("the default is not listed first: %+v", e.slas(t))
		}
		if msg := e.admin.refused(t, http.StatusUnprocessableEntity, 0, http.MethodDelete,
			"/api/v1/radar/slas/"+strconv.FormatInt(def.ID, 10), nil); msg != "The default SLA cannot be deleted: change its time instead." {
			t.Errorf("deleting the default: %q", msg)
		}
		e.admin.refused(t, http.StatusNotFound, 0, http.MethodDelete, "/api/v1/radar/slas/987654", nil)
	})
}
