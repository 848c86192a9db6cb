package callback

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate/services/internal/stdwebhooks"
)

// Request is one signed POST of a delivery.
type Request struct {
	// URL is where it goes.
	URL string
	// Body is the JSON body.
	Body []byte
	// Headers are the webhook-* headers (none when unsigned but the id and
	// timestamp).
	Headers map[string]string
}

// Response is what came of a Request.
type Response struct {
	// StatusCode is the receiver's HTTP status, 0 when there was none.
	StatusCode int
	// Err says why there was no answer, or what was wrong with it (a body
	// too large); nil for a complete answer of any status. Its text is the
	// client library's, which can name the network Paygate runs in: it goes
	// to the log only.
	Err error
	// Reason says in a sentence why there was no usable answer, without
	// library text: what the attempt's error message shows. Set with Err.
	Reason string
	// Snippet is the start of the answer's body, for the error message of a
	// non-2xx answer.
	Snippet string
}

// Sender posts requests to receivers.
type Sender interface {
	// Send posts r and reports the outcome; it never panics on a bad peer.
	Send(ctx context.Context, r Request) Response
}

// DispatcherOptions tune a Dispatcher; zero values take the defaults.
type DispatcherOptions struct {
	// Workers is how many requests are in flight at most (64).
	Workers int
	// URLWorkers, when positive, is how many of them may go to one callback
	// URL (0, or Workers or more: no limit but Workers): a receiver that
	// holds its requests until the timeout then holds no more than that
	// many slots while its breaker has not opened yet. A fresh delivery to
	// a URL that has that many in flight waits in memory, without a
	// request slot, for one of them to end, and is sent with the slot that
	// request leaves, so a burst to one fast URL goes out at the pace its
	// receiver answers; one that waited FreshWait is stored pending (its
	// attempts not used up) for the claim loop. A claimed delivery to such
	// a URL is not attempted: it stays pending, due after FreshWait.
	URLWorkers int
	// BatchSize is the most deliveries claimed, and the most results
	// recorded, at once (256).
	BatchSize int
	// Lease is how long a claim holds a delivery (1 min); it must exceed
	// the send timeout, since an unrecorded delivery is sent again after it.
	Lease time.Duration
	// PollInterval is how often the store is asked for due deliveries when
	// nothing woke the dispatcher (250 ms).
	PollInterval time.Duration
	// FreshWait is the longest a submitted fresh delivery waits for a free
	// request slot (2 s): one that waited longer is stored pending, without
	// an attempt, and the claim loop sends it, so that the event that made
	// it is acknowledged well within its ack wait even when receivers are
	// slow.
	FreshWait time.Duration
	// Backoff spaces the attempts of a delivery.
	Backoff Backoff
	// ExternalClaims leaves the claim loop to calls of Claim (a job that
	// one replica runs at a time) instead of Run.
	ExternalClaims bool
	// Now is the clock (time.Now).
	Now func() time.Time
	// Logger receives failures (slog.Default).
	Logger *slog.Logger
	// Tracer traces attempts (the process's global tracer provider).
	Tracer trace.TracerProvider
	// BreakerRefresh is how often the fresh loop reads the breakers that
	// hold deliveries back (1 s): a fresh delivery to such a URL is stored
	// pending without an attempt.
	BreakerRefresh time.Duration
}

// Dispatcher delivers callbacks. Fresh deliveries, made from events and
// handed over by Submit, are sent at once and stored only with their first
// attempt's result (one write per delivery instead of an insert, a claim and
// an update). Stored due deliveries (retries, enqueues, fresh ones that
// waited too long) are claimed in batches under a lease. Both share at most
// Workers requests in flight, and their results are recorded in batches,
// each batch in one database transaction, while the next requests go out.
// Results waiting to be recorded are bounded by a batch: when recording
// lags, senders wait, and so does claiming.
type Dispatcher struct {
	store   DeliveryStore
	secrets *Secrets
	sender  Sender
	o       DispatcherOptions
	tracer  trace.Tracer
	wake    chan struct{}
	fresh   chan Job
	stopped chan struct{}
	mu      sync.RWMutex // held by Submit and Claim while they start; closed is set under it
	closed  bool

	// Set up by Run before ready is closed: the request slots, the results
	// waiting to be recorded and the requests in flight, shared by the
	// fresh loop and the claim loop (Run's or Claim's).
	ready    chan struct{}
	slots    chan struct{}
	results  chan Result
	inflight sync.WaitGroup
	// tasks are the attempts to make, run by Workers long-lived goroutines
	// (a goroutine per attempt would grow a new stack through the HTTP
	// client's calls every time); a task is queued only with a slot taken,
	// so one is always free for it.
	tasks    chan func()
	claimers sync.WaitGroup

	// blocked are the URLs whose breakers hold deliveries back, as last
	// read (freshLoop only).
	blocked     map[int64]time.Time
	blockedRead time.Time

	// busy counts the requests in flight per callback URL (those a
	// waiting delivery was handed included), and waiting holds, per URL in
	// arrival order, the fresh deliveries waiting for one of them to end.
	busyMu  sync.Mutex
	busy    map[int64]int
	waiting map[int64][]waiter
}

// waiter is a fresh delivery waiting, without a request slot, for a request
// to its callback URL to end (URLWorkers).
type waiter struct {
	job  Job
	keys [][]byte
}

// Job is a fresh delivery handed to Submit, and what to call once its
// outcome is stored (nil) or cannot be (an error: the event that made it
// should come again).
type Job struct {
	Delivery Delivery
	Done     func(error)
	queued   time.Time
}

// ErrStopped is what a Job's Done gets when the dispatcher stopped before
// its outcome was stored.
var ErrStopped = errors.New("dispatcher stopped")

// NewDispatcher returns a dispatcher of store's deliveries.
func NewDispatcher(store DeliveryStore, secrets *Secrets, sender Sender, o DispatcherOptions) *Dispatcher {
	if o.Workers <= 0 {
		o.Workers = 64
	}
	if o.URLWorkers <= 0 || o.URLWorkers > o.Workers {
		o.URLWorkers = o.Workers
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 256
	}
	if o.Lease <= 0 {
		o.Lease = time.Minute
	}
	if o.PollInterval <= 0 {
		o.PollInterval = 250 * time.Millisecond
	}
	if o.FreshWait <= 0 {
		o.FreshWait = 2 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Tracer == nil {
		o.Tracer = otel.GetTracerProvider()
	}
	if o.BreakerRefresh <= 0 {
		o.BreakerRefresh = time.Second
	}
	return &Dispatcher{store: store, secrets: secrets, sender: sender, o: o, wake: make(chan struct{}, 1),
		tracer: o.Tracer.Tracer("github.com/paygate/paygate/services/callbacks/internal/callback"),
		fresh:  make(chan Job, 4*o.BatchSize), stopped: make(chan struct{}), ready: make(chan struct{}), busy: map[int64]int{},
		waiting: map[int64][]waiter{}}
}

// Submit queues fresh deliveries for their first attempt, waiting while the
// queue is full. Every job's Done is called exactly once: after its outcome
// is stored, or with an error when ctx ended or the dispatcher stopped first.
func (d *Dispatcher) Submit(ctx context.Context, jobs []Job) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	for i, j := range jobs {
		j.queued = d.o.Now()
		if !d.closed {
			select {
			case d.fresh <- j:
				continue
			case <-ctx.Done():
			case <-d.stopped:
			}
		}
		err := ctx.Err()
		if err == nil {
			err = ErrStopped
		}
		for _, rest := range jobs[i:] {
			rest.Done(err)
		}
		return
	}
}

// Wake makes the dispatcher look for due deliveries now.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends, then lets the requests in flight finish,
// records them and returns nil. A result it could not record is lost to
// the database only: a claimed delivery's lease runs out and it is sent
// again; a fresh one's event comes again.
func (d *Dispatcher) Run(ctx context.Context) error {
	// slots holds a token per request in flight, released once its result
	// is handed to the recorder.
	slots := make(chan struct{}, d.o.Workers)
	results := make(chan Result, d.o.BatchSize)
	inflight := &d.inflight
	d.slots, d.results = slots, results
	d.tasks = make(chan func(), d.o.Workers)
	var workers sync.WaitGroup
	for range d.o.Workers {
		workers.Go(func() {
			for t := range d.tasks {
				t()
			}
		})
	}
	close(d.ready)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		d.record(ctx, results, slots)
	}()

	var loops sync.WaitGroup
	if !d.o.ExternalClaims {
		loops.Add(1)
		go func() {
			defer loops.Done()
			d.claimLoop(ctx, ctx, slots, results, inflight)
		}()
	}
	loops.Add(1)
	go func() {
		defer loops.Done()
		d.freshLoop(ctx, slots, results, inflight)
	}()
	loops.Wait()
	// Submitters waiting for room give up; later ones find it closed, so
	// every job queued is in the channel when it is drained below. Claim
	// loops end too.
	close(d.stopped)
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.claimers.Wait()
	// Jobs still queued never started: their events come again.
	for {
		select {
		case j := <-d.fresh:
			j.Done(ErrStopped)
			continue
		default:
		}
		break
	}
	inflight.Wait()
	// Every request to a URL hands its slot to the URL's next waiting
	// delivery, so none should be left; any that is never started.
	for _, w := range d.takeWaiting(func(waiter) bool { return true }) {
		w.job.Done(ErrStopped)
	}
	close(d.tasks)
	workers.Wait()
	close(results)
	<-recorded
	return nil
}

// ClaimReport is what a Claim did.
type ClaimReport struct {
	// Sent is the number of stored due deliveries claimed and sent.
	Sent int
	// Failures is the number of claims that failed, LastError the last
	// one's error.
	Failures  int
	LastError error
}

// Claim runs the claim loop (stored due deliveries: retries, enqueued ones,
// fresh ones that waited too long) until ctx ends, stop is closed or Run
// stops, for a dispatcher with ExternalClaims; requests it started finish
// under Run. It waits for Run to start, and returns ErrStopped once Run
// has stopped.
func (d *Dispatcher) Claim(ctx context.Context, stop <-chan struct{}) (ClaimReport, error) {
	select {
	case <-d.ready:
	case <-ctx.Done():
		return ClaimReport{}, nil
	case <-stop:
		return ClaimReport{}, nil
	}
	d.mu.RLock()
	if d.closed {
		d.mu.RUnlock()
		return ClaimReport{}, ErrStopped
	}
	d.claimers.Add(1)
	d.mu.RUnlock()
	defer d.claimers.Done()

	// The loop's waits end at stop; a claim made is still sent.
	waitCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-stop:
		case <-d.stopped:
		case <-waitCtx.Done():
		}
		cancel()
	}()
	return d.claimLoop(waitCtx, ctx, d.slots, d.results, &d.inflight), nil
}

// claimLoop sends stored due deliveries, claimed in batches, until waitCtx
// ends; claims are made under ctx.
func (d *Dispatcher) claimLoop(waitCtx, ctx context.Context, slots chan struct{}, results chan<- Result, inflight *sync.WaitGroup) ClaimReport {
	var rep ClaimReport
	sendCtx := context.WithoutCancel(ctx)
	for waitCtx.Err() == nil {
		n := d.acquire(waitCtx, slots)
		if n == 0 {
			break
		}
		batch, err := d.claim(ctx, n)
		for range n - batch.len() {
			<-slots
		}
		rep.Sent += batch.len()
		if err != nil && ctx.Err() == nil {
			d.o.Logger.WarnContext(ctx, "claim due deliveries", "error", err)
			rep.Failures++
			rep.LastError = err
		}
		for _, dl := range batch.deliveries {
			inflight.Add(1)
			d.tasks <- func() {
				defer inflight.Done()
				d.attemptClaimed(sendCtx, dl, batch.keys[dl.MerchantID], results)
				<-slots
			}
		}
		if len(batch.deliveries) == 0 || err != nil {
			select {
			case <-waitCtx.Done():
			case <-d.wake:
			case <-time.After(d.o.PollInterval):
			}
		}
	}
	return rep
}

// freshLoop sends submitted fresh deliveries, a batch at a time (one read
// of the signing keys per batch). A job that waited longer than FreshWait
// is recorded as pending, unattempted, for the claim loop.
func (d *Dispatcher) freshLoop(ctx context.Context, slots chan struct{}, results chan<- Result, inflight *sync.WaitGroup) {
	sendCtx := context.WithoutCancel(ctx)
	// Deliveries waiting for a request to their URL to end are stored
	// pending once they waited FreshWait; the sweep finds them when no
	// request to their URL ended meanwhile (a receiver holding them).
	sweep := time.NewTicker(max(d.o.FreshWait/4, 10*time.Millisecond))
	defer sweep.Stop()
	for {
		var batch []Job
		select {
		case <-ctx.Done():
			return
		case <-sweep.C:
			d.spillWaiting(results)
			continue
		case j := <-d.fresh:
			batch = append(batch, j)
		}
	fill:
		for len(batch) < d.o.BatchSize {
			select {
			case j := <-d.fresh:
				batch = append(batch, j)
			default:
				break fill
			}
		}
		var merchants []int32
		for _, j := range batch {
			if j.Delivery.Sign {
				merchants = append(merchants, j.Delivery.MerchantID)
			}
		}
		keys := map[int32][][]byte{}
		if len(merchants) > 0 {
			var err error
			if keys, err = d.secrets.SigningKeys(ctx, merchants); err != nil {
				if ctx.Err() == nil {
					d.o.Logger.WarnContext(ctx, "signing keys of fresh deliveries; they are stored pending", "error", err)
				}
				for _, j := range batch {
					results <- d.unattempted(j)
				}
				continue
			}
		}
		spilled := false
		d.refreshBlocked(ctx)
		for _, j := range batch {
			if retryAt, ok := d.blocked[j.Delivery.CallbackURLID]; ok {
				// The URL's breaker is open: no attempt; the delivery
				// waits, pending, for the probe to close it.
				r := d.unattempted(j)
				if retryAt.After(r.NextAttemptAt) {
					r.NextAttemptAt = retryAt
				}
				results <- r
				continue
			}
			left := d.o.FreshWait - d.o.Now().Sub(j.queued)
			if left <= 0 {
				results <- d.unattempted(j)
				spilled = true
				continue
			}
			if !d.takeSlot(ctx, slots, left) {
				// Not started: stored pending, for the claim loop.
				results <- d.unattempted(j)
				spilled = true
				continue
			}
			w := waiter{job: j, keys: keys[j.Delivery.MerchantID]}
			if !d.takeURLOrWait(w) {
				// Its URL has URLWorkers requests in flight: it waits for
				// one of them to end, without the slot.
				<-slots
				continue
			}
			inflight.Add(1)
			d.tasks <- func() {
				defer inflight.Done()
				d.sendFrom(sendCtx, w, results)
				<-slots
			}
		}
		if spilled {
			d.Wake()
		}
	}
}

// spillWaiting stores pending, for the claim loop, the deliveries that
// waited FreshWait for a request to their URL to end.
func (d *Dispatcher) spillWaiting(results chan<- Result) {
	now := d.o.Now()
	old := d.takeWaiting(func(w waiter) bool { return now.Sub(w.job.queued) >= d.o.FreshWait })
	for _, w := range old {
		results <- d.unattempted(w.job)
	}
	if len(old) > 0 {
		d.Wake()
	}
}

// takeWaiting removes and returns the waiting deliveries that take picks,
// taking each URL's in arrival order and stopping at its first one take
// leaves.
func (d *Dispatcher) takeWaiting(take func(waiter) bool) []waiter {
	d.busyMu.Lock()
	defer d.busyMu.Unlock()
	var out []waiter
	for id, ws := range d.waiting {
		n := 0
		for n < len(ws) && take(ws[n]) {
			n++
		}
		out = append(out, ws[:n]...)
		deliveriesWaiting.Sub(float64(n))
		if n == len(ws) {
			delete(d.waiting, id)
		} else if n > 0 {
			d.waiting[id] = ws[n:]
		}
	}
	return out
}

// refreshBlocked reads the breakers that hold deliveries back when the last
// read is older than BreakerRefresh; on an error it keeps the last read.
func (d *Dispatcher) refreshBlocked(ctx context.Context) {
	now := d.o.Now()
	if d.blocked != nil && now.Sub(d.blockedRead) < d.o.BreakerRefresh {
		return
	}
	blocked, err := d.store.BlockedURLs(ctx)
	if err != nil {
		if ctx.Err() == nil {
			d.o.Logger.WarnContext(ctx, "read open circuit breakers", "error", err)
		}
		if d.blocked == nil {
			d.blocked = map[int64]time.Time{}
		}
		return
	}
	d.blocked, d.blockedRead = blocked, now
}

// takeSlot takes a request slot, waiting at most wait; false when none came
// or ctx ended.
func (d *Dispatcher) takeSlot(ctx context.Context, slots chan struct{}, wait time.Duration) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// unattempted is the result of a fresh job stored without an attempt: a
// pending delivery due now.
func (d *Dispatcher) unattempted(j Job) Result {
	now := d.o.Now()
	return Result{Delivery: j.Delivery, At: now, Status: DeliveryPending, NextAttemptAt: now, done: j.Done}
}

// linger is how long the claimer waits for more free slots, and the
// recorder for more results, before going on with a small batch: a few
// milliseconds of latency buy far fewer, larger database transactions.
const linger = 5 * time.Millisecond

// acquire takes at least one free slot (waiting for it) and at most a
// batch's worth, and returns how many it took (0 when ctx ended). With
// fewer than a quarter of the slots free, it lingers for more.
func (d *Dispatcher) acquire(ctx context.Context, slots chan struct{}) int {
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	n := 1
	want := min(d.o.BatchSize, d.o.Workers)
	var timeout <-chan time.Time
	for n < want {
		select {
		case slots <- struct{}{}:
			n++
			continue
		default:
		}
		if n >= want/4 || len(slots) == n {
			// Enough, or nothing else is in flight to free a slot.
			return n
		}
		if timeout == nil {
			timeout = time.After(linger)
		}
		select {
		case slots <- struct{}{}:
			n++
		case <-timeout:
			return n
		case <-ctx.Done():
			return n
		}
	}
	return n
}

type claimed struct {
	deliveries []Delivery
	keys       map[int32][][]byte
}

func (c claimed) len() int { return len(c.deliveries) }

// claim leases up to n due deliveries and loads the signing keys they need.
func (d *Dispatcher) claim(ctx context.Context, n int) (claimed, error) {
	now := d.o.Now()
	ds, err := d.store.ClaimDue(ctx, now, n, now.Add(d.o.Lease))
	if err != nil {
		return claimed{}, err
	}
	var merchants []int32
	for _, dl := range ds {
		if dl.Sign {
			merchants = append(merchants, dl.MerchantID)
		}
	}
	keys := map[int32][][]byte{}
	if len(merchants) > 0 {
		if keys, err = d.secrets.SigningKeys(ctx, merchants); err != nil {
			// The claimed deliveries come back when their lease ends.
			return claimed{}, err
		}
	}
	return claimed{deliveries: ds, keys: keys}, nil
}

// limited reports whether requests to callback URL id are counted: a
// delivery that names no URL (id 0) is not, as for the breakers, and none
// are when URLWorkers is no limit.
func (d *Dispatcher) limited(id int64) bool { return id != 0 && d.o.URLWorkers < d.o.Workers }

// takeURL counts a request to callback URL id in flight; false, counting
// nothing, when the URL already has URLWorkers in flight.
func (d *Dispatcher) takeURL(id int64) bool {
	if !d.limited(id) {
		return true
	}
	d.busyMu.Lock()
	defer d.busyMu.Unlock()
	if d.busy[id] >= d.o.URLWorkers {
		return false
	}
	d.busy[id]++
	return true
}

// takeURLOrWait counts a request to w's URL in flight, or, when the URL
// already has URLWorkers in flight, queues w to be handed the first of them
// to end (releaseURL) and reports false.
func (d *Dispatcher) takeURLOrWait(w waiter) bool {
	id := w.job.Delivery.CallbackURLID
	if !d.limited(id) {
		return true
	}
	d.busyMu.Lock()
	defer d.busyMu.Unlock()
	if d.busy[id] >= d.o.URLWorkers {
		d.waiting[id] = append(d.waiting[id], w)
		deliveriesWaiting.Inc()
		return false
	}
	d.busy[id]++
	return true
}

// releaseURL ends a request to callback URL id counted by takeURL. When the
// request was delivered and a delivery to the URL is waiting, the request's
// count passes to it: next is that delivery, to send with the ending
// request's slot. Waiting deliveries passed over on the way, having waited
// FreshWait, are in stale, to store pending. A request that failed passes
// its count to none: the receiver may be failing, and what waits for it
// goes on waiting (and then to the claim loop, which the breaker governs)
// unless a request to it succeeds.
func (d *Dispatcher) releaseURL(id int64, delivered bool) (next waiter, ok bool, stale []waiter) {
	if !d.limited(id) {
		return waiter{}, false, nil
	}
	now := d.o.Now()
	d.busyMu.Lock()
	defer d.busyMu.Unlock()
	ws := d.waiting[id]
	for delivered && len(ws) > 0 && !ok {
		if now.Sub(ws[0].job.queued) >= d.o.FreshWait {
			stale = append(stale, ws[0])
		} else {
			next, ok = ws[0], true
		}
		ws = ws[1:]
		deliveriesWaiting.Dec()
	}
	if len(ws) == 0 {
		delete(d.waiting, id)
	} else {
		d.waiting[id] = ws
	}
	if !ok {
		if d.busy[id]--; d.busy[id] <= 0 {
			delete(d.busy, id)
		}
	}
	return next, ok, stale
}

// sendFrom posts fresh delivery w, its URL's request counted, and hands
// its result to the recorder; then, while deliveries to the same URL are
// waiting, it posts them in turn with the same request slot and count.
func (d *Dispatcher) sendFrom(ctx context.Context, w waiter, results chan<- Result) {
	for {
		r := d.post(ctx, w.job.Delivery, w.keys)
		r.done = w.job.Done
		var ok bool
		var stale []waiter
		// The URL's count ends with the request, before the result waits
		// for the recorder: it counts what the receiver holds.
		w, ok, stale = d.releaseURL(w.job.Delivery.CallbackURLID, r.Attempt == AttemptSuccess)
		results <- r
		d.storeStale(stale, results)
		if !ok {
			return
		}
	}
}

// attemptClaimed posts claimed delivery dl, unless its URL has URLWorkers
// requests in flight: then it stays pending, without an attempt, due after
// FreshWait. Deliveries waiting for the URL then go out with the slot
// (releaseURL).
func (d *Dispatcher) attemptClaimed(ctx context.Context, dl Delivery, keys [][]byte, results chan<- Result) {
	if !d.takeURL(dl.CallbackURLID) {
		now := d.o.Now()
		results <- Result{Delivery: dl, At: now, Status: DeliveryPending, NextAttemptAt: now.Add(d.o.FreshWait)}
		return
	}
	r := d.post(ctx, dl, keys)
	next, ok, stale := d.releaseURL(dl.CallbackURLID, r.Attempt == AttemptSuccess)
	results <- r
	d.storeStale(stale, results)
	if ok {
		d.sendFrom(ctx, next, results)
	}
}

// storeStale stores pending the waiting deliveries that waited FreshWait.
func (d *Dispatcher) storeStale(stale []waiter, results chan<- Result) {
	for _, w := range stale {
		results <- d.unattempted(w.job)
	}
	if len(stale) > 0 {
		d.Wake()
	}
}

// post posts one delivery and decides what follows, in a span that
// continues the delivery's trace (that of the request whose event made it)
// when it has one: the first attempt and every retry alike. The caller
// counts the request to its URL (takeURL, releaseURL).
func (d *Dispatcher) post(ctx context.Context, dl Delivery, keys [][]byte) Result {
	if dl.Trace.IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, dl.Trace)
	}
	ctx, span := d.tracer.Start(ctx, "callback delivery attempt", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.Int64("paygate.callback.delivery_id", dl.ID),
			attribute.Int64("paygate.transaction_id", dl.TransactionID),
			attribute.Int("paygate.callback.attempt", int(dl.AttemptsMade)+1)))
	defer span.End()
	now := d.o.Now()
	ts := now.Unix()
	headers := make(map[string]string, 3+len(dl.Headers))
	if len(dl.Headers) > 0 {
		// The URL's custom headers first: none may replace those below
		// (checkHeaders refuses their names).
		custom, lost := d.secrets.OpenHeaders(dl.CallbackURLID, dl.Headers)
		for _, h := range custom {
			headers[h[0]] = h[1]
		}
		if len(lost) > 0 {
			d.o.Logger.ErrorContext(ctx, "secret headers of a callback URL no longer open (their encryption key left the keyring); sent without them",
				"callback_url_id", dl.CallbackURLID, "headers", lost)
		}
	}
	headers[stdwebhooks.HeaderID] = dl.WebhookID
	headers[stdwebhooks.HeaderTimestamp] = strconv.FormatInt(ts, 10)
	if dl.Sign {
		// During a rotation's overlap: the new key's signature, then the
		// old one's, space-separated (Standard Webhooks).
		sigs := make([]string, 0, len(keys))
		for _, k := range keys {
			sigs = append(sigs, stdwebhooks.Sign(k, dl.WebhookID, ts, dl.Body))
		}
		headers[stdwebhooks.HeaderSignature] = strings.Join(sigs, " ")
	}
	sent := time.Now()
	resp := d.sender.Send(ctx, Request{URL: dl.URL, Body: dl.Body, Headers: headers})
	r := Outcome(dl, resp, now, d.o.Backoff)
	r.Duration = time.Since(sent)
	if resp.Err != nil {
		// The attempt stores the sentence; the client's own words are for
		// the people who run Paygate.
		d.o.Logger.WarnContext(ctx, "callback receiver gave no usable answer", "transaction_id", dl.TransactionID,
			"delivery_id", dl.ID, "attempt", r.Number(), "status_code", resp.StatusCode, "error", resp.Err)
	}
	outcome := outcomeLabel(r.Attempt)
	attemptsTotal.WithLabelValues(outcome).Inc()
	attemptDuration.WithLabelValues(outcome).Observe(time.Since(sent).Seconds())
	span.SetAttributes(attribute.String("paygate.callback.outcome", outcome), attribute.Int("http.response.status_code", resp.StatusCode))
	if r.Attempt != AttemptSuccess {
		span.SetStatus(codes.Error, "callback not delivered")
	}
	return r
}

// Outcome decides the attempt status of a response to delivery dl made at
// now, and the delivery's status and next attempt after it: a 2xx answer
// delivers (the receiver took it, even if its answer's body was cut short);
// anything else is retried after the backoff delay while attempts are
// left, and fails the delivery when none are.
func Outcome(dl Delivery, resp Response, now time.Time, b Backoff) Result {
	r := Result{Delivery: dl, At: now, ResponseCode: int32(resp.StatusCode), NextAttemptAt: now}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		r.Attempt, r.Status = AttemptSuccess, DeliveryDelivered
		return r
	}
	r.ErrorMessage = errorMessage(resp)
	n := r.Number()
	if n < dl.MaxAttempts {
		r.Attempt, r.Status = AttemptRetried, DeliveryPending
		r.NextAttemptAt = now.Add(b.Delay(n))
		return r
	}
	r.Attempt, r.Status = AttemptFailed, DeliveryFailed
	return r
}

// errorMessage words a failed attempt for the attempt's error message:
// sentences, never the client library's text (Response.Err).
func errorMessage(resp Response) string {
	reason := resp.Reason
	if reason == "" && resp.Err != nil {
		reason = "The receiver gave no usable answer."
	}
	msg := reason
	if resp.StatusCode != 0 {
		msg = fmt.Sprintf("The receiver answered HTTP %d.", resp.StatusCode)
		if reason != "" {
			msg += " " + reason
		}
		if resp.Snippet != "" {
			msg += " Its answer began: " + resp.Snippet
		}
	}
	if msg == "" {
		msg = "The receiver did not answer."
	}
	const limit = 500
	if r := []rune(msg); len(r) > limit {
		msg = string(r[:limit])
	}
	return msg
}

// record stores results in batches until results is closed. It waits a
// little for a batch to fill while requests are still in flight. A failed
// batch is tried again (with a growing pause) until it is stored or, after
// ctx ended, a few times more.
func (d *Dispatcher) record(ctx context.Context, results <-chan Result, slots <-chan struct{}) {
	for r := range results {
		batch := []Result{r}
		timeout := time.After(linger)
	drain:
		for len(batch) < d.o.BatchSize {
			select {
			case more, ok := <-results:
				if !ok {
					break drain
				}
				batch = append(batch, more)
				continue
			default:
			}
			if len(slots) == 0 {
				// Nothing in flight: no result is coming soon.
				break
			}
			select {
			case more, ok := <-results:
				if !ok {
					break drain
				}
				batch = append(batch, more)
			case <-timeout:
				break drain
			}
		}
		d.store1(ctx, batch)
	}
}

func (d *Dispatcher) store1(ctx context.Context, batch []Result) {
	pause := 100 * time.Millisecond
	for try := 1; ; try++ {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		err := d.store.RecordResults(rctx, batch, d.o.Now())
		cancel()
		if err == nil {
			settle(batch, nil)
			return
		}
		if ctx.Err() != nil && try >= 3 {
			d.o.Logger.Error("results not recorded; claimed deliveries are sent again after the lease, fresh ones when their events come again",
				"results", len(batch), "error", err)
			settle(batch, err)
			return
		}
		d.o.Logger.Warn("record delivery results", "results", len(batch), "try", try, "error", err)
		t := time.NewTimer(pause)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		pause = min(pause*2, 5*time.Second)
	}
}

// settle tells the submitters of the fresh results in batch how recording
// them ended.
func settle(batch []Result, err error) {
	for _, r := range batch {
		if r.done != nil {
			r.done(err)
		}
	}
}
