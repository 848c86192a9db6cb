package bus_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

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

// TestRunHandsBackWhatItHoldsWhenStopped stops a run while its handler holds
// a batch and more messages wait in the client's buffer, and starts another:
// the second gets every message at once, neither after AckWait nor after the
// retry delay (a continuous job's consumer stops at the end of every lease,
// so each message held then came late: the client's Stop discarded its
// buffer until AckWait, where Drain hands it to the callback, which gives it
// back; and the batch cut short by the stop came back after the first retry
// delay, as if it had failed).
func TestRunHandsBackWhatItHoldsWhenStopped(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, outboxMigrations)
	js := connect(t)
	subject := uniqueSubject(t)
	const n = 60
	sessions := make([]proto.Message, n)
	for i := range sessions {
		sessions[i] = started(fmt.Sprintf("s%d", i))
	}
	enqueue(t, pool, subject, sessions...)
	startRelay(t, pool, js)
	route := bus.Route{Durable: "test-handback-" + subject[len(bus.SubjectPrefix):], Subject: subject, Size: 5,
		AckWait: time.Minute, FirstRetry: time.Minute, MaxRetry: time.Minute, Logger: quietLogger()}

	// The first run's handler holds its first batch until the run stops.
	ctx, cancel := context.WithCancel(context.Background())
	holding := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		var once sync.Once
		done <- bus.Run(ctx, js, route, func(ctx context.Context, _ []bus.Delivery, _ *bus.Settle) error {
			once.Do(func() { close(holding) })
			<-ctx.Done()
			return bus.ErrStopping
		})
	}()
	select {
	case <-holding:
	case <-time.After(20 * time.Second):
		t.Fatal("the first run got no batch")
	}
	// Let the server fill the client's buffer behind the held batch.
	waitFor(t, 10*time.Second, "messages delivered beyond the held batch", func() bool {
		c, err := js.Consumer(testContext(t, 5*time.Second), bus.StreamName, route.Durable)
		if err != nil {
			return false
		}
		info, err := c.Info(testContext(t, 5*time.Second))
		return err == nil && info.NumAckPending > 2*route.Size
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("first Run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the first run did not return after cancel")
	}

	var mu sync.Mutex
	seen := map[string]bool{}
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	go func() {
		_ = bus.Run(ctx2, js, route, func(_ context.Context, batch []bus.Delivery, _ *bus.Settle) error {
			mu.Lock()
			defer mu.Unlock()
			for _, d := range batch {
				var ev eventsv1.SessionStarted
				if err := bus.Decode(d.Msg, &ev); err == nil {
					seen[ev.GetSessionId()] = true
				}
			}
			return nil
		})
	}()
	// Well within AckWait and the retry delay (a minute each): only what the
	// first run handed back at once can come this soon.
	waitFor(t, 15*time.Second, "every message handled by the second run", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(seen) == n
	})
}
