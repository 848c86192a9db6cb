package callback_test

import (
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
)

func TestBreakerObserve(t *testing.T) {
	t.Parallel()
	s := callback.BreakerSettings{Failures: 3, Cooldown: time.Second, CooldownCap: 3 * time.Second, DisableAfter: time.Hour}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	fail := func(at time.Time) callback.Observation {
		return callback.Observation{At: at, Error: "The receiver answered HTTP 503."}
	}
	b := callback.Breaker{URLID: 7}

	b, tr := s.Observe(b, []callback.Observation{fail(t0), fail(t0)}, t0)
	if b.State != callback.BreakerClosed || b.Failures != 2 || tr.Opened || !b.FailingSince.Equal(t0) {
		t.Fatalf("after 2 failures: %+v %+v", b, tr)
	}
	b, tr = s.Observe(b, []callback.Observation{fail(t0.Add(time.Second))}, t0.Add(time.Second))
	if b.State != callback.BreakerOpen || !tr.Opened || b.Cooldown != time.Second || !b.RetryAt.Equal(t0.Add(2*time.Second)) {
		t.Fatalf("after 3 failures: %+v %+v", b, tr)
	}
	// A failed probe doubles the cool-down, up to the cap.
	for _, want := range []time.Duration{2 * time.Second, 3 * time.Second, 3 * time.Second} {
		b.State = callback.BreakerHalfOpen
		b, tr = s.Observe(b, []callback.Observation{fail(t0.Add(time.Minute))}, t0.Add(time.Minute))
		if b.State != callback.BreakerOpen || !tr.Opened || b.Cooldown != want {
			t.Fatalf("after a failed probe: %+v, want cool-down %v", b, want)
		}
	}
	// A success closes it and forgets the failures.
	b.State = callback.BreakerHalfOpen
	b, tr = s.Observe(b, []callback.Observation{{At: t0.Add(2 * time.Minute), OK: true}}, t0.Add(2*time.Minute))
	if b.State != callback.BreakerClosed || !tr.Closed || b.Failures != 0 || !b.FailingSince.IsZero() || !b.RetryAt.IsZero() {
		t.Fatalf("after a success: %+v %+v", b, tr)
	}
	// Failing for DisableAfter disables.
	b, tr = s.Observe(b, []callback.Observation{fail(t0.Add(time.Hour)), fail(t0.Add(2*time.Hour + time.Second))}, t0.Add(3*time.Hour))
	if b.State != callback.BreakerDisabled || !tr.Disabled || !strings.HasPrefix(tr.Reason, "Every attempt since 2026-01-01T01:00:00Z failed; the last: The receiver answered HTTP 503.") {
		t.Fatalf("after an hour of failures: %+v %+v", b, tr)
	}
}
