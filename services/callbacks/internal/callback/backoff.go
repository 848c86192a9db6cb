package callback

import (
	"math/rand/v2"
	"time"
)

// Backoff spaces a delivery's attempts: exponential with full jitter. After
// the n-th failed attempt the next one waits a uniformly random time between
// zero and min(Cap, Base·2^(n-1)), so receivers that failed together are not
// hit together again.
type Backoff struct {
	// Base is the ceiling after the first failure (1 s by default).
	Base time.Duration
	// Cap bounds the ceiling (10 min by default).
	Cap time.Duration
	// Rand returns a uniform int64 in [0, n); nil uses math/rand/v2.
	Rand func(n int64) int64
}

// DefaultBackoff is 1 s doubling, capped at 10 min.
var DefaultBackoff = Backoff{Base: time.Second, Cap: 10 * time.Minute}

// Ceiling returns the longest wait after the n-th failed attempt (n ≥ 1).
func (b Backoff) Ceiling(n int32) time.Duration {
	base, limit := b.Base, b.Cap
	if base <= 0 {
		base = DefaultBackoff.Base
	}
	if limit <= 0 {
		limit = DefaultBackoff.Cap
	}
	d := base
	for i := int32(1); i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// Delay returns the wait after the n-th failed attempt.
func (b Backoff) Delay(n int32) time.Duration {
	ceiling := int64(b.Ceiling(n))
	r := b.Rand
	if r == nil {
		r = rand.Int64N
	}
	return time.Duration(r(ceiling + 1))
}
