package bus_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// TestRunBatches drives the router with batches: a message that cannot be
// handled is dropped at once, a batch that fails comes back whole, and a
// message settled later (from another goroutine, after the handler
// returned) is acked only then.
func TestRunBatches(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	subject := uniqueSubject(t)
	enqueue(t, pool, subject, started("a"), started("poison"), started("b"), started("later"))
	startRelay(t, pool, js)

	var mu sync.Mutex
	seen := map[string]int{}
	failedOnce := false
	laterSettled := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	durable := "test-batch-" + subject[len(bus.SubjectPrefix):]
	done := make(chan error, 1)
	go func() {
		done <- bus.Run(ctx, js, bus.Route{Durable: durable, Subject: subject, Size: 10, Linger: 200 * time.Millisecond,
			FirstRetry: 20 * time.Millisecond, MaxRetry: 100 * time.Millisecond, Logger: quietLogger()},
			func(_ context.Context, batch []bus.Delivery, settle *bus.Settle) error {
				mu.Lock()
				defer mu.Unlock()
				for _, d := range batch {
					var ev eventsv1.SessionStarted
					if err := bus.Decode(d.Msg, &ev); err != nil {
						t.Errorf("decode: %v", err)
						continue
					}
					id := ev.GetSessionId()
					seen[id]++
					switch id {
					case "poison":
						settle.Drop(d.Msg, errors.New("cannot handle"))
					case "later":
						settle.Later(d.Msg)
						go func() {
							time.Sleep(100 * time.Millisecond)
							settle.Done(d.Msg)
							close(laterSettled)
						}()
					}
				}
				// The first batch with "b" fails: its unsettled messages come back.
				if seen["b"] == 1 && !failedOnce {
					failedOnce = true
					return errors.New("temporary failure")
				}
				return nil
			})
	}()

	infoCtx := testContext(t, 20*time.Second)
	select {
	case <-laterSettled:
	case <-time.After(20 * time.Second):
		t.Fatal("the message settled later was never settled")
	}
	waitFor(t, 15*time.Second, "every message acked or dropped", func() bool {
		mu.Lock()
		again := seen["b"] >= 2
		mu.Unlock()
		c, err := js.Consumer(infoCtx, bus.StreamName, durable)
		if err != nil {
			return false
		}
		info, err := c.Info(infoCtx)
		return again && err == nil && info.NumAckPending == 0 && info.NumPending == 0
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return after cancel")
	}
	mu.Lock()
	defer mu.Unlock()
	if seen["poison"] != 1 {
		t.Errorf("the dropped message came %d times, want once", seen["poison"])
	}
	if seen["later"] < 1 || seen["b"] < 2 {
		t.Errorf("seen = %v: want the failed batch's messages again", seen)
	}
}

func TestParseStart(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bus.Start{
		"": {}, "all": {}, "new": {New: true},
		"2026-01-02T03:04:05Z": {Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)},
	} {
		got, err := bus.ParseStart(in)
		if err != nil || got.New != want.New || !got.Time.Equal(want.Time) {
			t.Errorf("ParseStart(%q) = %+v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"latest", "2026-01-02"} {
		if _, err := bus.ParseStart(bad); err == nil {
			t.Errorf("ParseStart(%q) accepted", bad)
		}
	}
}

// TestRunHandsBackWhatItHoldsWhenStopped stops and starts runs of one
// consumer every 200 ms while messages keep coming (as a continuous job's
// consumer stops at the end of every lease), with a handler whose batches a
// stop cuts short: every message is handled at once, neither after AckWait
// nor after the retry delay (a minute each here). Before, the client's Stop
// dropped the messages the server had sent it around the stop, which came
// back only after AckWait (Drain hands them to the callback, which gives
// them back), and a batch cut short came back after the retry delay, as if
// it had failed.
func TestRunHandsBackWhatItHoldsWhenStopped(t *testing.T) {
	t.Parallel()
	js := connect(t)
	subject := uniqueSubject(t)
	route := bus.Route{Durable: "test-handback-" + subject[len(bus.SubjectPrefix):], Subject: subject, Size: 50,
		Linger: 5 * time.Millisecond, AckWait: time.Minute, FirstRetry: time.Minute, MaxRetry: time.Minute, Logger: quietLogger()}

	const n = 3000
	published := make(chan error, 1)
	go func() { // 3,000 messages over about 1.5 s
		ctx := testContext(t, 30*time.Second)
		for i := range n {
			if _, err := js.PublishAsync(subject, []byte(strconv.Itoa(i))); err != nil {
				published <- err
				return
			}
			if i%20 == 19 {
				time.Sleep(10 * time.Millisecond)
			}
		}
		select {
		case <-js.PublishAsyncComplete():
			published <- nil
		case <-ctx.Done():
			published <- ctx.Err()
		}
	}()

	var mu sync.Mutex
	seen := map[string]bool{}
	run := func(ctx context.Context) error {
		return bus.Run(ctx, js, route, func(ctx context.Context, batch []bus.Delivery, _ *bus.Settle) error {
			select { // a batch takes 20 ms to apply, and a stop cuts it short
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
				return ctx.Err()
			}
			mu.Lock()
			defer mu.Unlock()
			for _, d := range batch {
				seen[string(d.Msg.Data())] = true
			}
			return nil
		})
	}
	for range 10 {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := run(ctx)
		cancel()
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	}
	if err := <-published; err != nil {
		t.Fatalf("publish: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = run(ctx) }()
	// Well within AckWait and the retry delay: only what the runs before
	// handed back at once can come this soon.
	waitFor(t, 15*time.Second, "every message handled", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == n
	})
}
