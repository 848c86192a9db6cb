package postgres_test

import (
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/callbacks/internal/postgres"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestOutboxMigrationMatchesBus(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(postgres.Migrations, "0001_outbox.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(string(b)) != strings.TrimSpace(bus.OutboxDDL) {
		t.Errorf("0001_outbox.up.sql differs from bus.OutboxDDL:\n%s", b)
	}
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type fixture struct {
	store *postgres.Store
	pool  *pgxpool.Pool
	q     func(t *testing.T, sql string, args ...any) int64
	tally func(t *testing.T, txID int64) []*eventsv1.CallbackDeliveryChanged
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	f := fixture{store: postgres.NewStore(pool), pool: pool}
	f.q = func(t *testing.T, sql string, args ...any) int64 {
		t.Helper()
		var n int64
		if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return n
	}
	f.tally = func(t *testing.T, txID int64) []*eventsv1.CallbackDeliveryChanged {
		t.Helper()
		rows, err := pool.Query(context.Background(), `SELECT payload FROM outbox WHERE subject = $1 ORDER BY created_at, id`,
			bus.Subject(&eventsv1.CallbackDeliveryChanged{}))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var out []*eventsv1.CallbackDeliveryChanged
		for rows.Next() {
			var raw []byte
			if err := rows.Scan(&raw); err != nil {
				t.Fatal(err)
			}
			var ev eventsv1.CallbackDeliveryChanged
			if err := proto.Unmarshal(raw, &ev); err != nil {
				t.Fatal(err)
			}
			if ev.GetTransactionId() == txID {
				out = append(out, &ev)
			}
		}
		return out
	}
	return f
}

// urlSeq makes each fixture URL's address its own (a URL is enabled at
// most once per collab).
var urlSeq atomic.Int64

func (f fixture) url(t *testing.T, collabID int32, typ int32, enabled bool) callback.URL {
	t.Helper()
	u, err := f.store.CreateURL(context.Background(), callback.URL{
		CollabID: collabID, MerchantID: 1, URL: fmt.Sprintf("https://merchant.example/cb/%d", urlSeq.Add(1)), Enabled: enabled, MaxAttempts: 3,
		AddSignature: true, TransactionType: typ, CreatedAt: t0, UpdatedAt: t0,
	}, func(saved callback.URL) *eventsv1.CallbackUrlChanged {
		return &eventsv1.CallbackUrlChanged{Action: callback.ActionCreated, CallbackId: saved.ID}
	})
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func finalized(id string, txID int64, collabID, typ, prev, status int32, at time.Time) callback.TransactionEvent {
	return callback.TransactionEvent{EventID: id, Finalized: true, PreviousStatus: prev, State: callback.TransactionState{
		ID: txID, MerchantID: 1, CollabID: collabID, Type: typ, Status: status, Amount: "10.00", Currency: "PHP", UpdatedAt: at,
	}}
}

// storePending stores fresh deliveries as pending and unattempted, due at
// t0 (what the dispatcher does with one that waited too long).
func (f fixture) storePending(t *testing.T, ds []callback.Delivery) {
	t.Helper()
	rs := make([]callback.Result, len(ds))
	for i, d := range ds {
		rs[i] = callback.Result{Delivery: d, At: t0, Status: callback.DeliveryPending, NextAttemptAt: t0}
	}
	if err := f.store.RecordResults(context.Background(), rs, t0); err != nil {
		t.Fatal(err)
	}
}

func urlIDs(ds []callback.Delivery) []int64 {
	out := make([]int64, len(ds))
	for i, d := range ds {
		out[i] = d.CallbackURLID
	}
	slices.Sort(out)
	return out
}

func TestApplyTransactionEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	all := f.url(t, 10, callback.TypeAll, true)
	f.url(t, 10, callback.TypeCashOut, true) // a deposit does not go here
	f.url(t, 10, callback.TypeAll, false)    // disabled
	deposit := f.url(t, 10, callback.TypeCashIn, true)
	f.url(t, 11, callback.TypeAll, true) // another collab

	ev := finalized("ev-1", 100, 10, callback.TypeCashIn, 3, 4, t0)
	fresh, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{ev}, t0)
	if err != nil || !slices.Equal(urlIDs(fresh), []int64{all.ID, deposit.ID}) {
		t.Fatalf("first apply: deliveries to %v (%v), want to %d and %d", urlIDs(fresh), err, all.ID, deposit.ID)
	}
	if got := f.q(t, `SELECT count(*) FROM deliveries WHERE transaction_id = 100`); got != 0 {
		t.Fatalf("%d deliveries stored before any attempt", got)
	}
	// The same event again before anything was stored (a crash mid-send),
	// alone and twice within a batch: the same deliveries, same webhook ids.
	for _, batch := range [][]callback.TransactionEvent{{ev}, {ev, ev}} {
		again, err := f.store.ApplyTransactionEvents(ctx, batch, t0.Add(time.Second))
		if err != nil || len(again) != 2 {
			t.Fatalf("redelivered event: %d deliveries (%v), want 2", len(again), err)
		}
		for i := range again {
			if again[i].WebhookID != fresh[i].WebhookID || again[i].CallbackURLID != fresh[i].CallbackURLID {
				t.Fatalf("redelivered event: delivery %+v, first time %+v", again[i], fresh[i])
			}
		}
	}

	// The first attempts' results store the deliveries: one delivered, one
	// to be retried.
	results := []callback.Result{
		{Delivery: fresh[0], At: t0, ResponseCode: 204, Attempt: callback.AttemptSuccess, Status: callback.DeliveryDelivered, NextAttemptAt: t0},
		{Delivery: fresh[1], At: t0, ResponseCode: 500, ErrorMessage: "HTTP 500", Attempt: callback.AttemptRetried, Status: callback.DeliveryPending, NextAttemptAt: t0.Add(time.Minute)},
	}
	for range 2 { // recording again (a crash before the event's ack) changes nothing
		if err := f.store.RecordResults(ctx, results, t0); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.q(t, `SELECT count(*) FROM deliveries WHERE transaction_id = 100 AND attempts_made = 1`); got != 2 {
		t.Fatalf("stored deliveries = %d, want 2", got)
	}
	if got := f.q(t, `SELECT count(*) FROM attempts a JOIN deliveries d ON d.id = a.delivery_id
		JOIN delivery_bodies b ON b.event_id = d.event_id WHERE a.transaction_id = 100 AND a.attempt_number = 1`); got != 2 {
		t.Fatalf("first attempts with their bodies = %d, want 2", got)
	}
	if got := f.q(t, `SELECT count(*) FROM deliveries WHERE transaction_id = 100 AND status = 'pending' AND webhook_id = $1`, fresh[1].WebhookID); got != 1 {
		t.Fatal("the failed first attempt did not leave its delivery pending under its webhook id")
	}
	tallies := f.tally(t, 100)
	if len(tallies) != 1 || tallies[0].GetTotal() != 2 || tallies[0].GetDelivered() != 1 || tallies[0].GetVersion() != 1 {
		t.Fatalf("tallies = %v, want one 1/2 version 1", tallies)
	}
	// Stored now, the event makes nothing more.
	if again, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{ev}, t0.Add(time.Second)); err != nil || len(again) != 0 {
		t.Fatalf("event after its deliveries were stored: %d deliveries (%v)", len(again), err)
	}

	// The operator's callbacks cancel arrives as a finalized event with the
	// status unchanged: no delivery, and the pending one is cancelled.
	cancel := finalized("ev-2", 100, 10, callback.TypeCashIn, 4, 4, t0.Add(time.Minute))
	cancel.State.CallbacksCanceled = true
	if ds, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{cancel}, t0); err != nil || len(ds) != 0 {
		t.Fatalf("cancel made %d deliveries (%v)", len(ds), err)
	}
	if got := f.q(t, `SELECT count(*) FROM deliveries WHERE transaction_id = 100 AND status = 'cancelled'`); got != 1 {
		t.Fatalf("cancelled deliveries = %d, want 1", got)
	}
	if tl := f.tally(t, 100); len(tl) != 2 || tl[1].GetTotal() != 1 || tl[1].GetDelivered() != 1 || tl[1].GetVersion() != 2 {
		t.Fatalf("tally after cancel = %v, want 1/1 version 2", tl)
	}
	// A later status change of a cancelled transaction sends nothing, and an
	// older state does not undo the cancel.
	later := finalized("ev-3", 100, 10, callback.TypeCashIn, 4, -1, t0.Add(2*time.Minute))
	older := finalized("ev-0", 100, 10, callback.TypeCashIn, 3, 4, t0.Add(-time.Minute))
	if ds, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{later, older}, t0); err != nil || len(ds) != 0 {
		t.Fatalf("events after the cancel made %d deliveries (%v)", len(ds), err)
	}
	tx, err := f.store.Transaction(ctx, 100)
	if err != nil || !tx.CallbacksCanceled || tx.Status != -1 {
		t.Fatalf("projection = %+v, %v; want cancelled at -1", tx, err)
	}

	// Unchanged status seen for the first time delivers; an update never.
	first := finalized("ev-4", 101, 10, callback.TypeCashOut, 4, 4, t0)
	update := callback.TransactionEvent{EventID: "ev-5", PreviousStatus: 1, State: callback.TransactionState{ID: 102, MerchantID: 1, CollabID: 10, Type: 1, Status: 3, UpdatedAt: t0}}
	if ds, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{first, update}, t0); err != nil || len(ds) != 2 {
		t.Fatalf("first sighting and update made %d deliveries (%v), want 2 (cash-out and all)", len(ds), err)
	}
	if _, err := f.store.Transaction(ctx, 102); err != nil {
		t.Fatalf("an update is not projected: %v", err)
	}
	if _, err := f.store.Transaction(ctx, 999); apperr.KindOf(err) != apperr.KindNotFound {
		t.Fatalf("unknown transaction: %v", err)
	}
}

// TestFreshRetryOfACancelledTransactionIsCancelled: callbacks cancelled
// while a fresh delivery's first attempt was out; its failure must not leave
// it pending.
func TestFreshRetryOfACancelledTransactionIsCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.url(t, 12, callback.TypeAll, true)
	fresh, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{finalized("c-1", 120, 12, 1, 3, 4, t0)}, t0)
	if err != nil || len(fresh) != 1 {
		t.Fatalf("%d deliveries (%v)", len(fresh), err)
	}
	cancel := finalized("c-2", 120, 12, 1, 4, 4, t0.Add(time.Second))
	cancel.State.CallbacksCanceled = true
	if _, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{cancel}, t0); err != nil {
		t.Fatal(err)
	}
	r := callback.Result{Delivery: fresh[0], At: t0, ResponseCode: 503, Attempt: callback.AttemptRetried, Status: callback.DeliveryPending, NextAttemptAt: t0}
	if err := f.store.RecordResults(ctx, []callback.Result{r}, t0); err != nil {
		t.Fatal(err)
	}
	if got := f.q(t, `SELECT count(*) FROM deliveries WHERE transaction_id = 120 AND status = 'cancelled'`); got != 1 {
		t.Fatal("the failed fresh delivery of a cancelled transaction is not cancelled")
	}
	if got := f.q(t, `SELECT count(*) FROM attempts WHERE transaction_id = 120`); got != 1 {
		t.Fatal("its attempt is not listed")
	}
	if ds, _ := f.store.ClaimDue(ctx, t0.Add(time.Hour), 10, t0.Add(2*time.Hour)); len(ds) != 0 {
		t.Fatalf("%d deliveries due", len(ds))
	}
}

func TestClaimLeaseRecord(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.url(t, 20, callback.TypeAll, true)
	f.url(t, 20, callback.TypeAll, true)
	var evs []callback.TransactionEvent
	for i := range 10 {
		evs = append(evs, finalized("claim-"+string(rune('a'+i)), int64(200+i), 20, 1, 3, 4, t0))
	}
	fresh, err := f.store.ApplyTransactionEvents(ctx, evs, t0)
	if err != nil || len(fresh) != 20 {
		t.Fatalf("made %d deliveries (%v), want 20", len(fresh), err)
	}
	f.storePending(t, fresh)

	// Claimers running at once never get the same delivery.
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				ds, err := f.store.ClaimDue(ctx, t0, 3, t0.Add(time.Minute))
				if err != nil {
					t.Error(err)
					return
				}
				if len(ds) == 0 {
					return
				}
				mu.Lock()
				for _, d := range ds {
					seen[d.ID]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(seen) != 20 {
		t.Fatalf("claimed %d deliveries, want 20", len(seen))
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("delivery %d claimed %d times", id, n)
		}
	}
	// Nothing is due again before the lease ends; everything after.
	if ds, _ := f.store.ClaimDue(ctx, t0.Add(59*time.Second), 100, t0.Add(2*time.Minute)); len(ds) != 0 {
		t.Fatalf("%d deliveries claimed within the lease", len(ds))
	}
	again, err := f.store.ClaimDue(ctx, t0.Add(61*time.Second), 100, t0.Add(3*time.Minute))
	if err != nil || len(again) != 20 {
		t.Fatalf("after the lease: %d claimed (%v), want 20", len(again), err)
	}

	// A result recorded under the old lease is kept as an attempt but does
	// not change the delivery; one under the current lease does.
	d := again[0]
	stale := d
	stale.Lease = "00000000-0000-7000-8000-000000000000"
	ok := callback.Result{Delivery: stale, At: t0, ResponseCode: 200, Attempt: callback.AttemptSuccess, Status: callback.DeliveryDelivered, NextAttemptAt: t0}
	if err := f.store.RecordResults(ctx, []callback.Result{ok}, t0); err != nil {
		t.Fatal(err)
	}
	if got := f.q(t, `SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'pending'`, d.ID); got != 1 {
		t.Fatal("a result under a lost lease changed the delivery")
	}
	ok.Delivery = d
	if err := f.store.RecordResults(ctx, []callback.Result{ok}, t0); err != nil {
		t.Fatal(err)
	}
	if got := f.q(t, `SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'delivered' AND attempts_made = 1 AND lease_id IS NULL`, d.ID); got != 1 {
		t.Fatal("the result under the current lease was not applied")
	}
	if got := f.q(t, `SELECT count(*) FROM attempts WHERE delivery_id = $1`, d.ID); got != 2 {
		t.Fatalf("attempts of the delivery = %d, want 2 (every attempt is kept)", got)
	}
	tl := f.tally(t, d.TransactionID)
	if last := tl[len(tl)-1]; last.GetDelivered() != 1 || last.GetTotal() != 2 || last.GetVersion() != 2 {
		t.Fatalf("tally = %v, want 1/2 version 2", last)
	}
}

// TestClaimedResultWithoutAttempt: a claimed delivery the dispatcher did
// not send (its URL had its share of requests in flight) is released from
// its lease and due later, pending, with no attempt stored or used up.
func TestClaimedResultWithoutAttempt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.url(t, 21, callback.TypeAll, true)
	fresh, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{finalized("busy-a", 250, 21, 1, 3, 4, t0)}, t0)
	if err != nil || len(fresh) != 1 {
		t.Fatalf("made %d deliveries (%v), want 1", len(fresh), err)
	}
	f.storePending(t, fresh)
	ds, err := f.store.ClaimDue(ctx, t0, 10, t0.Add(time.Minute))
	if err != nil || len(ds) != 1 {
		t.Fatalf("claimed %d (%v), want 1", len(ds), err)
	}
	later := t0.Add(2 * time.Second)
	r := callback.Result{Delivery: ds[0], At: t0, Status: callback.DeliveryPending, NextAttemptAt: later}
	if err := f.store.RecordResults(ctx, []callback.Result{r}, t0); err != nil {
		t.Fatal(err)
	}
	if got := f.q(t, `SELECT count(*) FROM deliveries WHERE id = $1 AND status = 'pending' AND attempts_made = 0
		AND lease_id IS NULL AND next_attempt_at = $2`, ds[0].ID, later); got != 1 {
		t.Fatal("the delivery is not pending, unattempted, released and due later")
	}
	if got := f.q(t, `SELECT count(*) FROM attempts WHERE delivery_id = $1`, ds[0].ID); got != 0 {
		t.Fatalf("%d attempts stored for a delivery not sent", got)
	}
	if again, _ := f.store.ClaimDue(ctx, t0.Add(time.Second), 10, t0.Add(time.Minute)); len(again) != 0 {
		t.Fatal("claimed again before its next attempt")
	}
	if again, _ := f.store.ClaimDue(ctx, later, 10, later.Add(time.Minute)); len(again) != 1 || again[0].AttemptsMade != 0 {
		t.Fatalf("claimed %+v when due, want it with no attempt made", again)
	}
}

// TestTallyUnderConcurrentRecords records the two deliveries of each
// transaction in two concurrent batches: the last tally must count both.
func TestTallyUnderConcurrentRecords(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.url(t, 30, callback.TypeAll, true)
	f.url(t, 30, callback.TypeAll, true)
	const txs = 15
	var evs []callback.TransactionEvent
	for i := range txs {
		evs = append(evs, finalized("tally-"+string(rune('a'+i)), int64(300+i), 30, 1, 3, 4, t0))
	}
	fresh, err := f.store.ApplyTransactionEvents(ctx, evs, t0)
	if err != nil {
		t.Fatal(err)
	}
	f.storePending(t, fresh)
	ds, err := f.store.ClaimDue(ctx, t0, 100, t0.Add(time.Minute))
	if err != nil || len(ds) != 2*txs {
		t.Fatalf("claimed %d (%v)", len(ds), err)
	}
	byTx := map[int64][]callback.Delivery{}
	for _, d := range ds {
		byTx[d.TransactionID] = append(byTx[d.TransactionID], d)
	}
	var a, b []callback.Result
	for _, pair := range byTx {
		res := func(d callback.Delivery) callback.Result {
			return callback.Result{Delivery: d, At: t0, ResponseCode: 204, Attempt: callback.AttemptSuccess, Status: callback.DeliveryDelivered}
		}
		a, b = append(a, res(pair[0])), append(b, res(pair[1]))
	}
	var wg sync.WaitGroup
	for _, batch := range [][]callback.Result{a, b} {
		wg.Go(func() {
			if err := f.store.RecordResults(ctx, batch, t0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for txID := range byTx {
		// The gateway keeps the tally of the highest version, whatever order
		// the events arrive in; versions are never reused.
		tl := f.tally(t, txID)
		newest := tl[0]
		seen := map[int64]bool{}
		for _, e := range tl {
			if seen[e.GetVersion()] {
				t.Fatalf("transaction %d: version %d twice", txID, e.GetVersion())
			}
			seen[e.GetVersion()] = true
			if e.GetVersion() > newest.GetVersion() {
				newest = e
			}
		}
		if newest.GetDelivered() != 2 || newest.GetTotal() != 2 || newest.GetVersion() != 3 {
			t.Fatalf("transaction %d: newest tally %d/%d version %d, want 2/2 version 3", txID, newest.GetDelivered(), newest.GetTotal(), newest.GetVersion())
		}
	}
}

func TestURLMadeAfterTheStateGetsNoReplay(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.url(t, 40, callback.TypeAll, true) // made at t0
	old := finalized("old", 400, 40, 1, 3, 4, t0.Add(-2*time.Minute))
	recent := finalized("recent", 401, 40, 1, 3, 4, t0.Add(-30*time.Second))
	ds, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{old, recent}, t0.Add(time.Hour))
	if err != nil || len(ds) != 1 {
		t.Fatalf("made %d deliveries (%v), want 1: only the state within a minute of the URL", len(ds), err)
	}
	if ds[0].TransactionID != 401 {
		t.Fatal("the recent transaction was not delivered")
	}
	// Enqueue is the operator's explicit resend: it reaches the URL.
	n, err := f.store.Enqueue(ctx, 400, "enqueue:1", t0, func(callback.Transaction) error { return nil })
	if err != nil || n != 1 {
		t.Fatalf("enqueue made %d (%v)", n, err)
	}
}

// TestConcurrentBatchesDoNotDeadlock applies batches that share
// transactions, in opposite orders, at once (the finalized and updated
// consumers, or two replicas).
func TestConcurrentBatchesDoNotDeadlock(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.url(t, 50, callback.TypeAll, true)
	var made atomic.Int32
	for round := range 5 {
		var up, down []callback.TransactionEvent
		for i := range 20 {
			id := int64(5000 + round*100 + i)
			up = append(up, finalized("up-"+strconv.FormatInt(id, 10), id, 50, 1, 3, 4, t0))
			down = append([]callback.TransactionEvent{{EventID: "down-" + strconv.FormatInt(id, 10), PreviousStatus: 1,
				State: callback.TransactionState{ID: id, MerchantID: 1, CollabID: 50, Type: 1, Status: 3, UpdatedAt: t0.Add(-time.Second)}}}, down...)
		}
		var wg sync.WaitGroup
		for _, batch := range [][]callback.TransactionEvent{up, down} {
			wg.Go(func() {
				ds, err := f.store.ApplyTransactionEvents(ctx, batch, t0)
				if err != nil {
					t.Error(err)
				}
				made.Add(int32(len(ds)))
			})
		}
		wg.Wait()
	}
	if got := made.Load(); got != 100 {
		t.Fatalf("deliveries = %d, want 100", got)
	}
	if got := f.q(t, `SELECT count(*) FROM transactions WHERE status = 4`); got != 100 {
		t.Fatalf("final transactions = %d, want 100: an older update replaced a newer state", got)
	}
}

func TestSealedKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	got, err := f.store.AddSealedKey(ctx, 1, []byte("first"), t0)
	if err != nil || string(got) != "first" {
		t.Fatalf("AddSealedKey = %q, %v", got, err)
	}
	// A second writer of a first key gets the first one back.
	if got, err = f.store.AddSealedKey(ctx, 1, []byte("second"), t0); err != nil || string(got) != "first" {
		t.Fatalf("second AddSealedKey = %q, %v", got, err)
	}
	if err := f.store.ReplaceSealedKey(ctx, 1, []byte("rotated"), t0, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	keys, err := f.store.SealedKeys(ctx, []int32{1, 2})
	if err != nil || len(keys) != 1 || string(keys[1]) != "rotated" {
		t.Fatalf("SealedKeys = %q, %v", keys, err)
	}
	// The replaced key still signs during the overlap, and not after it.
	if cur, prev, err := f.store.SigningSealedKeys(ctx, []int32{1, 2}, t0.Add(time.Minute)); err != nil || string(prev[1]) != "first" ||
		len(prev) != 1 || string(cur[1]) != "rotated" || len(cur) != 1 {
		t.Fatalf("SigningSealedKeys during the overlap = %q, %q, %v", cur, prev, err)
	}
	if cur, prev, err := f.store.SigningSealedKeys(ctx, []int32{1}, t0.Add(time.Hour)); err != nil || len(prev) != 0 || string(cur[1]) != "rotated" {
		t.Fatalf("SigningSealedKeys after the overlap = %q, %q, %v", cur, prev, err)
	}
	// A rotation without overlap drops it at once.
	if err := f.store.ReplaceSealedKey(ctx, 1, []byte("third"), t0, t0); err != nil {
		t.Fatal(err)
	}
	if cur, prev, err := f.store.SigningSealedKeys(ctx, []int32{1}, t0); err != nil || len(prev) != 0 || string(cur[1]) != "third" {
		t.Fatalf("SigningSealedKeys after a rotation without overlap = %q, %q, %v", cur, prev, err)
	}
}

// Migration 0004 keeps the oldest enabled copy of each (collab, url) and
// disables the others, leaving disabled rows and other collabs alone.
func TestURLOnceMigrationDisablesLaterCopies(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	ctx := context.Background()
	run := func(name string) {
		t.Helper()
		b, err := fs.ReadFile(postgres.Migrations, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pool.Exec(ctx, string(b)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	run("0004_callback_url_once.down.sql")
	// (collab, url, enabled): 1..3 copies of A on collab 1 (the second
	// disabled), B once, A once on collab 2.
	for _, r := range []struct {
		collab  int32
		url     string
		enabled bool
	}{{1, "https://a", true}, {1, "https://a", false}, {1, "https://a", true}, {1, "https://a", true}, {1, "https://b", true}, {2, "https://a", true}} {
		if _, err := pool.Exec(ctx, `INSERT INTO callback_urls (collab_id, merchant_id, url, is_enabled, created_at, updated_at)
			VALUES ($1, 1, $2, $3, $4, $4)`, r.collab, r.url, r.enabled, t0); err != nil {
			t.Fatal(err)
		}
	}
	run("0004_callback_url_once.up.sql")
	rows, err := pool.Query(ctx, `SELECT is_enabled FROM callback_urls ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	if err != nil {
		t.Fatal(err)
	}
	if want := []bool{true, false, false, false, true, true}; !slices.Equal(got, want) {
		t.Errorf("enabled after the migration %v, want %v", got, want)
	}
}

// TestClaimedDeliveryKeepsItsTrace stores a fresh delivery made in a known
// trace after a failed first attempt, and an operator's enqueue made in
// another, and checks each comes back from ClaimDue (its retry) in its own
// trace; a delivery made outside any trace comes back with none.
func TestClaimedDeliveryKeepsItsTrace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	f.url(t, 14, callback.TypeAll, true)
	span := func(tid, sid string) trace.SpanContext {
		t.Helper()
		traceID, err := trace.TraceIDFromHex(tid)
		if err != nil {
			t.Fatal(err)
		}
		spanID, err := trace.SpanIDFromHex(sid)
		if err != nil {
			t.Fatal(err)
		}
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled, Remote: true})
	}
	event, enqueue := span("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"), span("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331")

	fresh, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{
		finalized("tr-1", 140, 14, 1, 3, 4, t0), finalized("tr-2", 141, 14, 1, 3, 4, t0)}, t0)
	if err != nil || len(fresh) != 2 {
		t.Fatalf("%d deliveries (%v)", len(fresh), err)
	}
	var results []callback.Result
	for _, dl := range fresh {
		if dl.TransactionID == 140 {
			dl.Trace = event
		}
		results = append(results, callback.Result{Delivery: dl, At: t0, ResponseCode: 503, Attempt: callback.AttemptRetried,
			Status: callback.DeliveryPending, NextAttemptAt: t0})
	}
	if err := f.store.RecordResults(ctx, results, t0); err != nil {
		t.Fatal(err)
	}
	enqueued := finalized("tr-3", 142, 14, 1, 3, 4, t0)
	enqueued.State.Status = 3 // not final: no delivery of its own
	if _, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{enqueued}, t0); err != nil {
		t.Fatal(err)
	}
	if n, err := f.store.Enqueue(trace.ContextWithSpanContext(ctx, enqueue), 142, "enqueue-tr-3", t0,
		func(callback.Transaction) error { return nil }); err != nil || n != 1 {
		t.Fatalf("enqueue made %d deliveries (%v)", n, err)
	}

	ds, err := f.store.ClaimDue(ctx, t0.Add(time.Hour), 10, t0.Add(2*time.Hour))
	if err != nil || len(ds) != 3 {
		t.Fatalf("claimed %d deliveries (%v), want 3", len(ds), err)
	}
	want := map[int64]trace.SpanContext{140: event, 141: {}, 142: enqueue}
	for _, dl := range ds {
		if !dl.Trace.Equal(want[dl.TransactionID]) {
			t.Errorf("transaction %d's delivery claimed in trace %v, want %v", dl.TransactionID, dl.Trace, want[dl.TransactionID])
		}
	}
}

// TestOpenBreakerParksDeliveriesOnce: an opening breaker parks its URL's
// pending deliveries a cool-down cap after its probe (ParkUntil); a
// reopening after a failed probe moves only the deliveries due before its
// own probe and leaves the parked ones unwritten; closing makes them all due.
func TestOpenBreakerParksDeliveriesOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	settings := callback.BreakerSettings{}.WithDefaults()
	f.url(t, 40, callback.TypeAll, true)
	var evs []callback.TransactionEvent
	for i := range 10 {
		evs = append(evs, finalized(fmt.Sprintf("park-%d", i), int64(400+i), 40, 1, 3, 4, t0))
	}
	fresh, err := f.store.ApplyTransactionEvents(ctx, evs, t0)
	if err != nil || len(fresh) != 10 {
		t.Fatalf("made %d deliveries (%v), want 10", len(fresh), err)
	}
	f.storePending(t, fresh)
	urlID := fresh[0].CallbackURLID
	fail := func(ds []callback.Delivery, at time.Time) {
		t.Helper()
		rs := make([]callback.Result, len(ds))
		for i, d := range ds {
			rs[i] = callback.Result{Delivery: d, At: at, ResponseCode: 503, ErrorMessage: "503 Service Unavailable",
				Attempt: callback.AttemptFailed, Status: callback.DeliveryPending, NextAttemptAt: at.Add(10 * time.Second)}
		}
		if err := f.store.RecordResults(ctx, rs, at); err != nil {
			t.Fatal(err)
		}
	}
	// versions are the row versions (xmin) of the URL's pending deliveries.
	versions := func() map[int64]string {
		t.Helper()
		rows, err := f.pool.Query(ctx, `SELECT id, xmin::text FROM deliveries WHERE callback_url_id = $1 AND status = 'pending'`, urlID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]string{}
		var id int64
		var x string
		if _, err := pgx.ForEachRow(rows, []any{&id, &x}, func() error { out[id] = x; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}

	// Five failures open the breaker: all ten are parked past the probe.
	ds, err := f.store.ClaimDue(ctx, t0, 5, t0.Add(time.Minute))
	if err != nil || len(ds) != 5 {
		t.Fatalf("claimed %d (%v), want 5", len(ds), err)
	}
	fail(ds, t0)
	park := settings.ParkUntil(t0.Add(settings.Cooldown))
	if n := f.q(t, `SELECT count(*) FROM deliveries WHERE callback_url_id = $1 AND status = 'pending' AND next_attempt_at = $2`, urlID, park); n != 10 {
		t.Fatalf("%d of 10 pending deliveries parked at %v after the breaker opened", n, park)
	}
	// Two deliveries made while it is open, stored pending for the probe's
	// time (as the dispatcher stores them): the probe takes the older.
	for i, ev := range []callback.TransactionEvent{finalized("park-late-a", 410, 40, 1, 3, 4, t0), finalized("park-late-b", 411, 40, 1, 3, 4, t0)} {
		late, err := f.store.ApplyTransactionEvents(ctx, []callback.TransactionEvent{ev}, t0)
		if err != nil || len(late) != 1 {
			t.Fatalf("made %d deliveries (%v), want 1", len(late), err)
		}
		if err := f.store.RecordResults(ctx, []callback.Result{{Delivery: late[0], At: t0, Status: callback.DeliveryPending,
			NextAttemptAt: t0.Add(settings.Cooldown + time.Duration(i)*time.Millisecond)}}, t0); err != nil {
			t.Fatal(err)
		}
	}
	lateB := f.q(t, `SELECT id FROM deliveries WHERE transaction_id = 411`)
	before := versions()

	// The probe (the first late delivery) fails: the breaker opens again
	// (doubled cool-down). The probe and the second late delivery are parked
	// past the new probe; the ten parked before are not written.
	t1 := t0.Add(settings.Cooldown + time.Second)
	probe, err := f.store.ClaimDue(ctx, t1, 10, t1.Add(time.Minute))
	if err != nil || len(probe) != 1 {
		t.Fatalf("claimed %d (%v) when the probe was due, want 1", len(probe), err)
	}
	fail(probe, t1)
	park2 := settings.ParkUntil(t1.Add(2 * settings.Cooldown))
	after := versions()
	if len(after) != 12 {
		t.Fatalf("%d pending deliveries, want 12", len(after))
	}
	if probe[0].TransactionID != 410 {
		t.Fatalf("the probe was the delivery of transaction %d, want the oldest pending (410)", probe[0].TransactionID)
	}
	for id, x := range after {
		moved := id == probe[0].ID || id == lateB
		if !moved && x != before[id] {
			t.Errorf("delivery %d, parked at the first opening, was written again at the reopening", id)
		}
	}
	if n := f.q(t, `SELECT count(*) FROM deliveries WHERE id = ANY ($1) AND next_attempt_at = $2`, []int64{probe[0].ID, lateB}, park2); n != 2 {
		t.Fatalf("%d of the probe and the second late delivery parked at %v, want 2", n, park2)
	}

	// The next probe succeeds: the breaker closes and all are due at once.
	t2 := t1.Add(2*settings.Cooldown + time.Second)
	probe, err = f.store.ClaimDue(ctx, t2, 10, t2.Add(time.Minute))
	if err != nil || len(probe) != 1 {
		t.Fatalf("claimed %d (%v) when the second probe was due, want 1", len(probe), err)
	}
	if err := f.store.RecordResults(ctx, []callback.Result{{Delivery: probe[0], At: t2, ResponseCode: 200,
		Attempt: callback.AttemptSuccess, Status: callback.DeliveryDelivered, NextAttemptAt: t2}}, t2); err != nil {
		t.Fatal(err)
	}
	due, err := f.store.ClaimDue(ctx, t2, 100, t2.Add(time.Minute))
	if err != nil || len(due) != 11 {
		t.Fatalf("claimed %d (%v) after the breaker closed, want the other 11", len(due), err)
	}
}
