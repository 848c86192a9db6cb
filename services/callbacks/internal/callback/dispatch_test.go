package callback_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/stdwebhooks"
	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// fakeStore is a DeliveryStore and SecretStore with function fields.
type fakeStore struct {
	claimDue      func(ctx context.Context, now time.Time, limit int, leaseUntil time.Time) ([]callback.Delivery, error)
	recordResults func(ctx context.Context, results []callback.Result, at time.Time) error
	mu            sync.Mutex
	keys          map[int32][]byte
}

func (f *fakeStore) ClaimDue(ctx context.Context, now time.Time, limit int, leaseUntil time.Time) ([]callback.Delivery, error) {
	return f.claimDue(ctx, now, limit, leaseUntil)
}

func (f *fakeStore) BlockedURLs(context.Context) (map[int64]time.Time, error) {
	return map[int64]time.Time{}, nil
}

func (f *fakeStore) RecordResults(ctx context.Context, results []callback.Result, at time.Time) error {
	return f.recordResults(ctx, results, at)
}

func (f *fakeStore) SealedKeys(_ context.Context, ids []int32) (map[int32][]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[int32][]byte{}
	for _, id := range ids {
		if k, ok := f.keys[id]; ok {
			out[id] = k
		}
	}
	return out, nil
}

func (f *fakeStore) AddSealedKey(_ context.Context, id int32, sealed []byte, _ time.Time) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.keys == nil {
		f.keys = map[int32][]byte{}
	}
	if k, ok := f.keys[id]; ok {
		return k, nil
	}
	f.keys[id] = sealed
	return sealed, nil
}

func (f *fakeStore) SigningSealedKeys(ctx context.Context, ids []int32, _ time.Time) (map[int32][]byte, map[int32][]byte, error) {
	cur, err := f.SealedKeys(ctx, ids)
	return cur, map[int32][]byte{}, err
}

func (f *fakeStore) ReplaceSealedKey(_ context.Context, id int32, sealed []byte, _, _ time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[id] = sealed
	return nil
}

// plainSealer "seals" by prefixing the owner, enough to check it is used.
type plainSealer struct{}

func (plainSealer) Seal(p []byte, aad string) ([]byte, error) {
	return append([]byte(aad+"|"), p...), nil
}
func (plainSealer) Open(s []byte, aad string) ([]byte, error) {
	if len(s) < len(aad)+1 || string(s[:len(aad)+1]) != aad+"|" {
		return nil, errors.New("wrong owner")
	}
	return s[len(aad)+1:], nil
}

// senderFunc is a Sender.
type senderFunc func(ctx context.Context, r callback.Request) callback.Response

func (f senderFunc) Send(ctx context.Context, r callback.Request) callback.Response { return f(ctx, r) }

// TestDispatcher runs 300 deliveries through a dispatcher of 8 workers: at
// most 8 requests are in flight, each delivery is sent and recorded once,
// signed deliveries verify with the merchant's demo key, and stopping lets
// the requests in flight finish and be recorded.
func TestDispatcher(t *testing.T) {
	t.Parallel()
	const total, workers = 300, 8
	var mu sync.Mutex
	next := 0
	recorded := map[int64]callback.Result{}
	store := &fakeStore{
		claimDue: func(_ context.Context, _ time.Time, limit int, _ time.Time) ([]callback.Delivery, error) {
			mu.Lock()
			defer mu.Unlock()
			if limit > workers {
				t.Errorf("claimed %d, more than the %d workers", limit, workers)
			}
			var out []callback.Delivery
			for ; next < total && len(out) < limit; next++ {
				out = append(out, callback.Delivery{ID: int64(next), WebhookID: "msg_" + string(rune('A'+next%26)),
					MerchantID: int32(1 + next%3), Body: []byte(`{"n":1}`), Sign: next%2 == 0, MaxAttempts: 3, Lease: "l"})
			}
			return out, nil
		},
		recordResults: func(_ context.Context, rs []callback.Result, _ time.Time) error {
			mu.Lock()
			defer mu.Unlock()
			for _, r := range rs {
				if _, dup := recorded[r.Delivery.ID]; dup {
					t.Errorf("delivery %d recorded twice", r.Delivery.ID)
				}
				recorded[r.Delivery.ID] = r
			}
			return nil
		},
	}
	var inflight, peak, sent atomic.Int32
	var badSig atomic.Int32
	release := make(chan struct{})
	sender := senderFunc(func(_ context.Context, r callback.Request) callback.Response {
		n := inflight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		defer inflight.Add(-1)
		if sig, ok := r.Headers[stdwebhooks.HeaderSignature]; ok {
			sec, err := strconv.ParseInt(r.Headers[stdwebhooks.HeaderTimestamp], 10, 64)
			verified := false
			for m := int32(1); m <= 3 && err == nil; m++ {
				verified = verified || stdwebhooks.Verify(callback.DemoKey(m), r.Headers[stdwebhooks.HeaderID], sec, r.Body, sig)
			}
			if !verified {
				badSig.Add(1)
			}
		}
		if sent.Add(1) == total-5 {
			close(release)
		}
		time.Sleep(time.Millisecond)
		return callback.Response{StatusCode: 204}
	})
	secrets := callback.NewSecrets(store, plainSealer{}, true, time.Now)
	d := callback.NewDispatcher(store, secrets, sender, callback.DispatcherOptions{Workers: workers, BatchSize: 50, PollInterval: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	<-release
	cancel() // stop while the last few are in flight
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	mu.Lock()
	defer mu.Unlock()
	if int(sent.Load()) != len(recorded) {
		t.Fatalf("sent %d, recorded %d: results in flight at stop were lost", sent.Load(), len(recorded))
	}
	if p := peak.Load(); p > workers {
		t.Fatalf("%d requests in flight, more than %d workers", p, workers)
	}
	if badSig.Load() > 0 {
		t.Fatalf("%d signatures did not verify", badSig.Load())
	}
	for id, r := range recorded {
		if r.Status != callback.DeliveryDelivered || r.Attempt != callback.AttemptSuccess || r.ResponseCode != 204 {
			t.Fatalf("delivery %d: %+v", id, r)
		}
	}
}

// TestDispatcherRetriesRecording keeps results whose recording failed and
// stores them once the store is back.
func TestDispatcherRetriesRecording(t *testing.T) {
	t.Parallel()
	var claimed atomic.Bool
	var fails atomic.Int32
	stored := make(chan []callback.Result, 1)
	store := &fakeStore{
		claimDue: func(context.Context, time.Time, int, time.Time) ([]callback.Delivery, error) {
			if claimed.Swap(true) {
				return nil, nil
			}
			return []callback.Delivery{{ID: 1, WebhookID: "msg_1", MerchantID: 1, MaxAttempts: 1}}, nil
		},
		recordResults: func(_ context.Context, rs []callback.Result, _ time.Time) error {
			if fails.Add(1) <= 2 {
				return errors.New("database down")
			}
			stored <- rs
			return nil
		},
	}
	sender := senderFunc(func(context.Context, callback.Request) callback.Response { return callback.Response{StatusCode: 500} })
	d := callback.NewDispatcher(store, callback.NewSecrets(store, plainSealer{}, true, time.Now), sender,
		callback.DispatcherOptions{Workers: 2, PollInterval: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	select {
	case rs := <-stored:
		if len(rs) != 1 || rs[0].Status != callback.DeliveryFailed || rs[0].Attempt != callback.AttemptFailed {
			t.Fatalf("stored %+v", rs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the result was never stored")
	}
	cancel()
	<-done
}

// lockedBuffer is a log destination the dispatcher's goroutines share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestDispatcherLogsTheClientError stores an attempt that got no answer
// with the sender's sentence, and logs the client's own error (which names
// the resolver) with the transaction, for the people who run Paygate.
func TestDispatcherLogsTheClientError(t *testing.T) {
	t.Parallel()
	const raw = "dial tcp: lookup receiver.invalid on 10.255.255.53:53: no such host"
	const reason = `The URL's host name "receiver.invalid" was not found in DNS.`
	var claimed atomic.Bool
	stored := make(chan []callback.Result, 1)
	store := &fakeStore{
		claimDue: func(context.Context, time.Time, int, time.Time) ([]callback.Delivery, error) {
			if claimed.Swap(true) {
				return nil, nil
			}
			return []callback.Delivery{{ID: 7, TransactionID: 4242, WebhookID: "msg_7", MerchantID: 1, MaxAttempts: 1}}, nil
		},
		recordResults: func(_ context.Context, rs []callback.Result, _ time.Time) error {
			stored <- rs
			return nil
		},
	}
	sender := senderFunc(func(context.Context, callback.Request) callback.Response {
		return callback.Response{Err: errors.New(raw), Reason: reason}
	})
	logs := &lockedBuffer{}
	d := callback.NewDispatcher(store, callback.NewSecrets(store, plainSealer{}, true, time.Now), sender,
		callback.DispatcherOptions{Workers: 1, PollInterval: 5 * time.Millisecond, Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	select {
	case rs := <-stored:
		if len(rs) != 1 || rs[0].ErrorMessage != reason {
			t.Errorf("stored %+v, want the message %q", rs, reason)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the result was never stored")
	}
	cancel()
	<-done
	var logged bool
	for _, line := range strings.Split(logs.String(), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["error"] == raw && rec["transaction_id"] == float64(4242) && rec["delivery_id"] == float64(7) {
			logged = true
		}
	}
	if !logged {
		t.Errorf("no log line with the client's error and the transaction id:\n%s", logs)
	}
}

// recordingStore is a fakeStore that claims nothing (set claimDue to
// change that) and keeps every result recorded; stored returns them so far.
func recordingStore() (store *fakeStore, stored func() []callback.Result) {
	var mu sync.Mutex
	var results []callback.Result
	store = &fakeStore{
		claimDue: func(context.Context, time.Time, int, time.Time) ([]callback.Delivery, error) { return nil, nil },
		recordResults: func(_ context.Context, rs []callback.Result, _ time.Time) error {
			mu.Lock()
			defer mu.Unlock()
			results = append(results, rs...)
			return nil
		},
	}
	return store, func() []callback.Result {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(results)
	}
}

// TestDispatcherFreshDeliveries submits fresh deliveries: each is sent once
// and stored with its first attempt's result before its Done is told; one
// that waited for a slot longer than FreshWait is stored pending without an
// attempt instead; and jobs submitted after Run stopped are told so.
func TestDispatcherFreshDeliveries(t *testing.T) {
	t.Parallel()
	store, stored := recordingStore()
	storedOf := func(webhookID string) (callback.Result, bool) {
		for _, r := range stored() {
			if r.Delivery.WebhookID == webhookID {
				return r, true
			}
		}
		return callback.Result{}, false
	}
	unblock := make(chan struct{})
	var sends atomic.Int32
	sender := senderFunc(func(_ context.Context, r callback.Request) callback.Response {
		sends.Add(1)
		if r.Headers[stdwebhooks.HeaderID] == "msg_slow" {
			<-unblock
		}
		return callback.Response{StatusCode: 200}
	})
	d := callback.NewDispatcher(store, callback.NewSecrets(store, plainSealer{}, true, time.Now), sender,
		callback.DispatcherOptions{Workers: 1, FreshWait: 50 * time.Millisecond, PollInterval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()

	type outcome struct {
		id  string
		err error
	}
	dones := make(chan outcome, 10)
	job := func(id string) callback.Job {
		return callback.Job{
			Delivery: callback.Delivery{WebhookID: id, EventID: "ev-" + id, CallbackURLID: 1, TransactionID: 7, MerchantID: 1,
				URL: "https://example.com/cb", Body: []byte(`{}`), Sign: true, MaxAttempts: 3},
			Done: func(err error) {
				if _, ok := storedOf(id); !ok && err == nil {
					t.Errorf("%s: done before it was stored", id)
				}
				dones <- outcome{id, err}
			},
		}
	}
	// The slow one holds the only slot, so the next waits past FreshWait.
	d.Submit(ctx, []callback.Job{job("msg_slow")})
	time.Sleep(20 * time.Millisecond)
	d.Submit(ctx, []callback.Job{job("msg_waited")})
	select {
	case o := <-dones:
		if o.id != "msg_waited" || o.err != nil {
			t.Fatalf("first settled: %+v, want msg_waited stored", o)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the job that waited too long was not stored")
	}
	if r, _ := storedOf("msg_waited"); r.Attempt != "" || r.Status != callback.DeliveryPending || r.Delivery.ID != 0 {
		t.Fatalf("waited job stored as %+v, want pending without an attempt", r)
	}
	close(unblock)
	select {
	case o := <-dones:
		if o.id != "msg_slow" || o.err != nil {
			t.Fatalf("settled: %+v, want msg_slow stored", o)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the slow delivery was not stored")
	}
	if r, _ := storedOf("msg_slow"); r.Attempt != callback.AttemptSuccess || r.Status != callback.DeliveryDelivered || r.Number() != 1 {
		t.Fatalf("slow job stored as %+v, want delivered at attempt 1", r)
	}
	if n := sends.Load(); n != 1 {
		t.Fatalf("%d requests sent, want 1 (the waited job is the claim loop's now)", n)
	}

	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	d.Submit(context.Background(), []callback.Job{job("msg_late")})
	if o := <-dones; o.id != "msg_late" || !errors.Is(o.err, callback.ErrStopped) {
		t.Fatalf("job after stop settled %+v, want ErrStopped", o)
	}
}

// TestDispatcherCapsRequestsPerURL: a receiver that holds its requests gets
// at most URLWorkers of them. Its other fresh deliveries wait for one of
// them to end, without a request slot, and are stored pending without an
// attempt (none used up) once they waited FreshWait; a claimed one is
// stored pending at once, due after FreshWait. Every delivery to the other
// URLs, five to each against a cap of two, goes out meanwhile.
func TestDispatcherCapsRequestsPerURL(t *testing.T) {
	t.Parallel()
	const held, others = 6, 20
	var holding atomic.Int32
	var claimed atomic.Bool
	store, stored := recordingStore()
	store.claimDue = func(_ context.Context, _ time.Time, _ int, _ time.Time) ([]callback.Delivery, error) {
		// One stored delivery to the held URL, once it has its share.
		if holding.Load() < 2 || !claimed.CompareAndSwap(false, true) {
			return nil, nil
		}
		return []callback.Delivery{{ID: 100, WebhookID: "msg_claimed", CallbackURLID: 1, TransactionID: 100, MerchantID: 1,
			URL: "https://held.example/cb", Body: []byte(`{}`), AttemptsMade: 1, MaxAttempts: 3, Lease: "l"}}, nil
	}
	unblock := make(chan struct{})
	var sentHeld atomic.Int32
	sender := senderFunc(func(_ context.Context, r callback.Request) callback.Response {
		if r.URL == "https://held.example/cb" {
			sentHeld.Add(1)
			holding.Add(1)
			<-unblock
			return callback.Response{Err: errors.New("timeout"), Reason: "The receiver did not answer in time."}
		}
		time.Sleep(time.Millisecond)
		return callback.Response{StatusCode: 204}
	})
	const freshWait = 300 * time.Millisecond
	d := callback.NewDispatcher(store, callback.NewSecrets(store, plainSealer{}, true, time.Now), sender,
		callback.DispatcherOptions{Workers: 8, URLWorkers: 2, FreshWait: freshWait, PollInterval: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()

	var jobs []callback.Job
	done := make(chan error, held+others)
	for i := range held + others {
		url, urlID := "https://ok.example/cb", int64(2+i%4)
		if i < held {
			url, urlID = "https://held.example/cb", 1
		}
		id := "msg_" + strconv.Itoa(i)
		jobs = append(jobs, callback.Job{
			Delivery: callback.Delivery{WebhookID: id, EventID: "ev-" + id, CallbackURLID: urlID, TransactionID: int64(i + 1),
				MerchantID: 1, URL: url, Body: []byte(`{}`), MaxAttempts: 3},
			Done: func(err error) { done <- err },
		})
	}
	submitted := time.Now()
	d.Submit(ctx, jobs)
	// Everything but the two held requests is stored while they are held.
	for range held + others - 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("deliveries not stored while a receiver holds its requests (%d held)", holding.Load())
		}
	}
	wait := time.Now().Add(5 * time.Second)
	for {
		if n := len(stored()); n == held+others-2+1 || time.Now().After(wait) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := sentHeld.Load(); n != 2 {
		t.Fatalf("%d requests sent to the held URL, want 2 (URLWorkers)", n)
	}
	var delivered, waited int
	var claimedDeferred bool
	for _, r := range stored() {
		switch {
		case r.Delivery.CallbackURLID != 1:
			if r.Attempt != callback.AttemptSuccess {
				t.Errorf("%s to a healthy URL stored as %+v", r.Delivery.WebhookID, r)
			}
			delivered++
		case r.Delivery.ID == 100:
			claimedDeferred = r.Attempt == "" && r.Status == callback.DeliveryPending && r.AttemptsMade() == 1 &&
				!r.NextAttemptAt.Before(r.At.Add(freshWait))
		case r.Attempt == "" && r.Status == callback.DeliveryPending && r.AttemptsMade() == 0 && !r.At.Before(submitted.Add(freshWait)):
			waited++
		default:
			t.Errorf("%s to the held URL stored as %+v, want pending without an attempt after waiting %s", r.Delivery.WebhookID, r, freshWait)
		}
	}
	if delivered != others || waited != held-2 || !claimedDeferred {
		t.Fatalf("%d delivered, %d stored after waiting, claimed one deferred: %v; want %d, %d, true", delivered, waited, claimedDeferred, others, held-2)
	}
	close(unblock)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
}

// sendToOneURL runs a dispatcher with o and sender, submits n fresh
// deliveries to one callback URL, waits until every one is settled (5 s at
// most), stops the dispatcher and returns what it stored and when the
// deliveries were submitted.
func sendToOneURL(t *testing.T, n int, sender callback.Sender, o callback.DispatcherOptions) ([]callback.Result, time.Time) {
	t.Helper()
	store, stored := recordingStore()
	d := callback.NewDispatcher(store, callback.NewSecrets(store, plainSealer{}, true, time.Now), sender, o)
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()
	done := make(chan error, n)
	var jobs []callback.Job
	for i := range n {
		id := "msg_" + strconv.Itoa(i)
		jobs = append(jobs, callback.Job{
			Delivery: callback.Delivery{WebhookID: id, EventID: "ev-" + id, CallbackURLID: 1, TransactionID: int64(i + 1),
				MerchantID: 1, URL: "https://one.example/cb", Body: []byte(`{}`), MaxAttempts: 3},
			Done: func(err error) { done <- err },
		})
	}
	submitted := time.Now()
	d.Submit(ctx, jobs)
	for range n {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("the deliveries were not stored within 5 s")
		}
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	return stored(), submitted
}

// TestDispatcherBurstToOneURL: more fresh deliveries to one fast URL than
// URLWorkers all go out on their first attempt, never more than URLWorkers
// at once: each waits for a request to the URL to end, not for the claim
// loop.
func TestDispatcherBurstToOneURL(t *testing.T) {
	t.Parallel()
	const n, cap = 40, 2
	var inFlight, most atomic.Int32
	sender := senderFunc(func(context.Context, callback.Request) callback.Response {
		now := inFlight.Add(1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		time.Sleep(2 * time.Millisecond)
		inFlight.Add(-1)
		return callback.Response{StatusCode: 204}
	})
	stored, submitted := sendToOneURL(t, n, sender,
		callback.DispatcherOptions{Workers: 8, URLWorkers: cap, FreshWait: 10 * time.Second, PollInterval: 5 * time.Millisecond})
	if len(stored) != n {
		t.Fatalf("%d results stored, want %d", len(stored), n)
	}
	for _, r := range stored {
		if r.Attempt != callback.AttemptSuccess || r.Status != callback.DeliveryDelivered {
			t.Errorf("%s stored as %+v, want delivered on its first attempt", r.Delivery.WebhookID, r)
		}
	}
	if m := most.Load(); m > cap {
		t.Errorf("%d requests to the URL at once, want at most %d", m, cap)
	}
	t.Logf("%d deliveries to one URL, %d at a time, in %s", n, cap, time.Since(submitted).Round(time.Millisecond))
}

// TestDispatcherFailingURLHandsNoSlot: a request that failed does not pass
// its URL's count to the deliveries waiting for it: they wait their
// FreshWait and are stored pending without an attempt, for the claim loop
// (which the breaker governs), instead of each going to a failing receiver.
func TestDispatcherFailingURLHandsNoSlot(t *testing.T) {
	t.Parallel()
	const n = 5
	var sent atomic.Int32
	sender := senderFunc(func(context.Context, callback.Request) callback.Response {
		sent.Add(1)
		time.Sleep(20 * time.Millisecond)
		return callback.Response{StatusCode: 503}
	})
	const freshWait = 300 * time.Millisecond
	stored, submitted := sendToOneURL(t, n, sender,
		callback.DispatcherOptions{Workers: 8, URLWorkers: 1, FreshWait: freshWait, PollInterval: time.Hour})
	if s := sent.Load(); s != 1 {
		t.Fatalf("%d requests to the failing URL, want 1", s)
	}
	var waited int
	for _, r := range stored {
		if r.Attempt == "" && r.Status == callback.DeliveryPending && r.AttemptsMade() == 0 && !r.At.Before(submitted.Add(freshWait)) {
			waited++
		}
	}
	if waited != n-1 {
		t.Fatalf("%d of %d results stored pending after waiting %s, want %d: %+v", waited, len(stored), freshWait, n-1, stored)
	}
}

// waitingGauge reads paygate_callback_deliveries_waiting; NaN when it
// cannot (safe to call from any goroutine).
func waitingGauge() float64 {
	mfs, err := metrics.Registry.Gather()
	if err != nil {
		return math.NaN()
	}
	for _, mf := range mfs {
		if mf.GetName() == "paygate_callback_deliveries_waiting" {
			return mf.GetMetric()[0].GetGauge().GetValue()
		}
	}
	return math.NaN()
}

// TestDispatcherCountsWaitingDeliveries: the deliveries waiting for a
// request to their URL to end are counted in
// paygate_callback_deliveries_waiting while they wait, and no longer once
// sent. Not parallel: the gauge is the process's, which the parallel tests
// move too (they run only after this one).
func TestDispatcherCountsWaitingDeliveries(t *testing.T) {
	base := waitingGauge()
	if math.IsNaN(base) {
		t.Fatal("paygate_callback_deliveries_waiting cannot be read")
	}
	unblock := make(chan struct{})
	var sent atomic.Int32
	sender := senderFunc(func(context.Context, callback.Request) callback.Response {
		sent.Add(1)
		<-unblock
		return callback.Response{StatusCode: 204}
	})
	go func() {
		// Two of the three wait behind the first, held request.
		wait := time.Now().Add(5 * time.Second)
		for waitingGauge() != base+2 && time.Now().Before(wait) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := waitingGauge(); got != base+2 || sent.Load() != 1 {
			t.Errorf("while the first request is held: gauge %v, want %v; %d sent, want 1", got, base+2, sent.Load())
		}
		close(unblock)
	}()
	stored, _ := sendToOneURL(t, 3, sender,
		callback.DispatcherOptions{Workers: 4, URLWorkers: 1, FreshWait: 10 * time.Second, PollInterval: time.Hour})
	if len(stored) != 3 || sent.Load() != 3 {
		t.Fatalf("%d stored, %d sent, want 3 and 3", len(stored), sent.Load())
	}
	if got := waitingGauge(); got != base {
		t.Fatalf("gauge %v after every delivery was sent, want %v", got, base)
	}
}
