package callback

import (
	"fmt"
	"time"
)

// BreakerState is where a callback URL's circuit breaker stands
// (docs/contracts-callbacks.md, "Endpoint health").
type BreakerState string

// The breaker states.
const (
	// BreakerClosed lets deliveries go out.
	BreakerClosed BreakerState = "closed"
	// BreakerOpen holds them back until RetryAt.
	BreakerOpen BreakerState = "open"
	// BreakerHalfOpen has one probe in flight until RetryAt (its lease).
	BreakerHalfOpen BreakerState = "half_open"
	// BreakerDisabled belongs to a URL disabled automatically.
	BreakerDisabled BreakerState = "disabled"
)

// BreakerSettings tune the breakers; zero values take the defaults.
type BreakerSettings struct {
	// Failures is the consecutive failed attempts that open a breaker (5).
	Failures int32
	// Cooldown is an open breaker's first wait before a probe (30 s),
	// doubled per failed probe up to CooldownCap (10 min).
	Cooldown, CooldownCap time.Duration
	// DisableAfter is how long every attempt to a URL must have failed for
	// it to be disabled automatically (72 h).
	DisableAfter time.Duration
}

// WithDefaults fills the zero values.
func (s BreakerSettings) WithDefaults() BreakerSettings {
	if s.Failures <= 0 {
		s.Failures = 5
	}
	if s.Cooldown <= 0 {
		s.Cooldown = 30 * time.Second
	}
	if s.CooldownCap < s.Cooldown {
		s.CooldownCap = max(s.Cooldown, 10*time.Minute)
	}
	if s.DisableAfter <= 0 {
		s.DisableAfter = 72 * time.Hour
	}
	return s
}

// ParkUntil is where an opening breaker whose probe is due at retryAt puts
// its URL's pending deliveries: a cool-down cap after the probe. Nothing
// reads that time but the claim (the probe takes the URL's pending delivery
// due first, whatever its time, and a closing breaker makes them all due at
// once), so it only has to lie beyond the next probes: a reopening moves
// the deliveries due before its own probe, and the ones parked earlier stay
// put, so the backlog is written at the first opening and at every other
// opening at the cap, not at every opening (issue 30).
func (s BreakerSettings) ParkUntil(retryAt time.Time) time.Time {
	return retryAt.Add(s.WithDefaults().CooldownCap)
}

// Breaker is one callback URL's breaker.
type Breaker struct {
	URLID    int64
	State    BreakerState
	Failures int32
	// FailingSince is the first failed attempt after the last success
	// (zero when the last attempt succeeded).
	FailingSince time.Time
	Cooldown     time.Duration
	// RetryAt is when an open breaker may probe, or when a half-open
	// breaker's probe lease ends.
	RetryAt   time.Time
	LastError string
}

// Observation is one recorded attempt to a URL.
type Observation struct {
	At    time.Time
	OK    bool
	Error string
}

// Transition says what applying observations did to a breaker.
type Transition struct {
	// Opened: it opened (or opened again after a failed probe); the URL's
	// pending deliveries wait for the probe at RetryAt (parked: ParkUntil).
	Opened bool
	// Closed: it closed; the URL's pending deliveries are due at once.
	Closed bool
	// Disabled: the URL is to be disabled automatically, for Reason.
	Disabled bool
	Reason   string
}

// Observe applies attempts, oldest first, to b at now.
func (s BreakerSettings) Observe(b Breaker, obs []Observation, now time.Time) (Breaker, Transition) {
	s = s.WithDefaults()
	var t Transition
	for _, o := range obs {
		if o.OK {
			b.Failures, b.FailingSince, b.LastError = 0, time.Time{}, ""
			if b.State == BreakerOpen || b.State == BreakerHalfOpen {
				b.State, b.Cooldown, b.RetryAt = BreakerClosed, 0, time.Time{}
				t.Closed, t.Opened = true, false
			}
			continue
		}
		b.Failures++
		b.LastError = o.Error
		if b.FailingSince.IsZero() {
			b.FailingSince = o.At
		}
		switch b.State {
		case BreakerClosed, "":
			b.State = BreakerClosed
			if b.Failures >= s.Failures {
				b.State, b.Cooldown = BreakerOpen, s.Cooldown
				b.RetryAt = now.Add(b.Cooldown)
				t.Opened, t.Closed = true, false
			}
		case BreakerHalfOpen:
			b.State, b.Cooldown = BreakerOpen, min(max(2*b.Cooldown, s.Cooldown), s.CooldownCap)
			b.RetryAt = now.Add(b.Cooldown)
			t.Opened, t.Closed = true, false
		}
		if b.State != BreakerDisabled && o.At.Sub(b.FailingSince) >= s.DisableAfter {
			b.State, b.RetryAt = BreakerDisabled, time.Time{}
			t.Disabled, t.Opened, t.Closed = true, false, false
			t.Reason = DisabledReason(b.FailingSince, b.LastError)
		}
	}
	return b, t
}

// DisabledReason words why a URL was disabled automatically.
func DisabledReason(since time.Time, lastError string) string {
	r := fmt.Sprintf("Every attempt since %s failed", since.UTC().Format(time.RFC3339))
	if lastError != "" {
		return r + "; the last: " + lastError
	}
	return r + "."
}
