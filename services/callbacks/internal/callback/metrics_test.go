package callback_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// TestDispatcherCountsOutcomes sends three claimed deliveries (one answered
// 204, one answered 500 with attempts left, one answered 500 on its last
// attempt) and checks paygate_callback_attempts_total moves by one for each
// outcome. Not parallel: the counter is process-wide, and parallel tests
// wait for this one to end.
func TestDispatcherCountsOutcomes(t *testing.T) {
	outcomes := []string{"delivered", "retried", "failed"}
	before := map[string]float64{}
	for _, o := range outcomes {
		before[o] = metrics.Value("paygate_callback_attempts_total", "outcome", o)
	}
	var mu sync.Mutex
	claimed := false
	recorded := make(chan callback.Result, 3)
	store := &fakeStore{
		claimDue: func(context.Context, time.Time, int, time.Time) ([]callback.Delivery, error) {
			mu.Lock()
			defer mu.Unlock()
			if claimed {
				return nil, nil
			}
			claimed = true
			return []callback.Delivery{
				{ID: 1, WebhookID: "msg_ok", URL: "http://r/ok", MerchantID: 1, Body: []byte(`{}`), MaxAttempts: 3, Lease: "l"},
				{ID: 2, WebhookID: "msg_retry", URL: "http://r/bad", MerchantID: 1, Body: []byte(`{}`), MaxAttempts: 3, Lease: "l"},
				{ID: 3, WebhookID: "msg_last", URL: "http://r/bad", MerchantID: 1, Body: []byte(`{}`), AttemptsMade: 2, MaxAttempts: 3, Lease: "l"},
			}, nil
		},
		recordResults: func(_ context.Context, rs []callback.Result, _ time.Time) error {
			for _, r := range rs {
				recorded <- r
			}
			return nil
		},
	}
	sender := senderFunc(func(_ context.Context, r callback.Request) callback.Response {
		if r.URL == "http://r/ok" {
			return callback.Response{StatusCode: 204}
		}
		return callback.Response{StatusCode: 500}
	})
	d := callback.NewDispatcher(store, callback.NewSecrets(store, plainSealer{}, true, time.Now), sender,
		callback.DispatcherOptions{Workers: 4, PollInterval: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	for range 3 {
		select {
		case <-recorded:
		case <-time.After(10 * time.Second):
			t.Fatal("results not recorded within 10s")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if got := metrics.Value("paygate_callback_attempts_total", "outcome", o) - before[o]; got != 1 {
			t.Errorf("paygate_callback_attempts_total{outcome=%q} moved by %v, want 1", o, got)
		}
		if got := metrics.Value("paygate_callback_attempt_duration_seconds", "outcome", o); got < 1 {
			t.Errorf("no attempt timed with outcome %q", o)
		}
	}
}
