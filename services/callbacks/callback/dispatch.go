package callback

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"
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
	// too large); nil for a complete answer of any status.
	Err error
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
	// BatchSize is the most deliveries claimed, and the most results
	// recorded, at once (256).
	BatchSize int
	// Lease is how long a claim holds a delivery (1 min); it must exceed
	// the send timeout, since an unrecorded delivery is sent again after it.
	Lease time.Duration
	// PollInterval is how often the store is asked for due deliveries when
	// nothing woke the dispatcher (250 ms).
	PollInterval time.Duration
	// Backoff spaces the attempts of a delivery.
	Backoff Backoff
	// Now is the clock (time.Now).
	Now func() time.Time
	// Logger receives failures (slog.Default).
	Logger *slog.Logger
}

// Dispatcher delivers due deliveries: it claims them in batches under a
// lease, posts them concurrently (at most Workers in flight), and records
// finished attempts in batches, each batch in one database transaction,
// while the next requests go out. Results waiting to be recorded are
// bounded by a batch: when recording lags, senders wait, and so does
// claiming.
type Dispatcher struct {
	store   DeliveryStore
	secrets *Secrets
	sender  Sender
	o       DispatcherOptions
	wake    chan struct{}
}

// NewDispatcher returns a dispatcher of store's deliveries.
func NewDispatcher(store DeliveryStore, secrets *Secrets, sender Sender, o DispatcherOptions) *Dispatcher {
	if o.Workers <= 0 {
		o.Workers = 64
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
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return &Dispatcher{store: store, secrets: secrets, sender: sender, o: o, wake: make(chan struct{}, 1)}
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
// the database only: its delivery's lease runs out and it is sent again.
func (d *Dispatcher) Run(ctx context.Context) error {
	// slots holds a token per request in flight, released once its result
	// is handed to the recorder.
	slots := make(chan struct{}, d.o.Workers)
	results := make(chan Result, d.o.BatchSize)
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		d.record(ctx, results, slots)
	}()

	var inflight sync.WaitGroup
	sendCtx := context.WithoutCancel(ctx)
	for ctx.Err() == nil {
		n := d.acquire(ctx, slots)
		if n == 0 {
			break
		}
		batch, err := d.claim(ctx, n)
		for range n - batch.len() {
			<-slots
		}
		if err != nil && ctx.Err() == nil {
			d.o.Logger.WarnContext(ctx, "claim due deliveries", "error", err)
		}
		for _, dl := range batch.deliveries {
			inflight.Add(1)
			go func() {
				defer inflight.Done()
				results <- d.attempt(sendCtx, dl, batch.keys[dl.MerchantID])
				<-slots
			}()
		}
		if len(batch.deliveries) == 0 || err != nil {
			select {
			case <-ctx.Done():
			case <-d.wake:
			case <-time.After(d.o.PollInterval):
			}
		}
	}
	inflight.Wait()
	close(results)
	<-recorded
	return nil
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
	keys       map[int32][]byte
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
	keys := map[int32][]byte{}
	if len(merchants) > 0 {
		if keys, err = d.secrets.Keys(ctx, merchants); err != nil {
			// The claimed deliveries come back when their lease ends.
			return claimed{}, err
		}
	}
	return claimed{deliveries: ds, keys: keys}, nil
}

// attempt posts one delivery and decides what follows.
func (d *Dispatcher) attempt(ctx context.Context, dl Delivery, key []byte) Result {
	now := d.o.Now()
	ts := now.Unix()
	headers := map[string]string{
		HeaderID:        dl.WebhookID,
		HeaderTimestamp: strconv.FormatInt(ts, 10),
	}
	if dl.Sign {
		headers[HeaderSignature] = Sign(key, dl.WebhookID, ts, dl.Body)
	}
	resp := d.sender.Send(ctx, Request{URL: dl.URL, Body: dl.Body, Headers: headers})
	return Outcome(dl, resp, now, d.o.Backoff)
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

func errorMessage(resp Response) string {
	var msg string
	switch {
	case resp.Err != nil && resp.StatusCode != 0:
		msg = fmt.Sprintf("HTTP %d: %v", resp.StatusCode, resp.Err)
	case resp.Err != nil:
		msg = resp.Err.Error()
	default:
		msg = fmt.Sprintf("HTTP %d", resp.StatusCode)
		if resp.Snippet != "" {
			msg += ": " + resp.Snippet
		}
	}
	const limit = 500
	if len(msg) > limit {
		msg = msg[:limit]
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
			return
		}
		if ctx.Err() != nil && try >= 3 {
			d.o.Logger.Error("results not recorded; their deliveries are sent again after the lease",
				"results", len(batch), "error", err)
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
