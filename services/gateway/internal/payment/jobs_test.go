package payment

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestPollingTickReadsTheInterval: the polling and recovery loops wait for
// the interval asked again at least every second, so a shorter
// PollingIntervalSeconds takes effect within a second, even in the middle of
// a long wait.
func TestPollingTickReadsTheInterval(t *testing.T) {
	t.Parallel()
	var interval atomic.Int64
	interval.Store(int64(time.Hour))
	every := func(context.Context) time.Duration { return time.Duration(interval.Load()) }
	wait := func(d time.Duration) bool { time.Sleep(d); return true }
	done := make(chan bool, 1)
	began := time.Now()
	go func() { done <- nextTick(context.Background(), began, every, wait) }()
	time.Sleep(300 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("the tick came before an hour")
	default:
	}
	interval.Store(int64(500 * time.Millisecond))
	select {
	case ok := <-done:
		if !ok {
			t.Error("nextTick reported the run's end")
		}
		if took := time.Since(began); took > 2*time.Second {
			t.Errorf("the shorter interval took %s to apply", took)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the shorter interval was not applied within 3s")
	}
	// A run that ends stops the wait.
	if nextTick(context.Background(), time.Now(), every, func(time.Duration) bool { return false }) {
		t.Error("nextTick went on after the run ended")
	}
}
