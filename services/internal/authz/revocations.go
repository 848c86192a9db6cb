package authz

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/internal/access"
)

// Revocations in Redis, and what happens when Redis loses them.
//
// The auth service records every revocation in Postgres and marks it in
// Redis, which every service reads on every authenticated call. Redis may
// lose the marks (a restart without persistence, FLUSHDB, a failover to an
// empty replica). Without more, a revoked token would pass until the auth
// service's periodic refill (PAYGATE_REVOCATION_REFILL_INTERVAL) put them
// back.
//
// So a refill also writes RevocationsFilledKey, in the same MULTI/EXEC as
// the marks: its presence says "this Redis holds every revocation". Redis
// loses it together with the marks, and only a refill writes it back. A
// reader asks for both keys in one MGET (one round trip, as before, while
// Redis is healthy): a session mark means revoked; no mark and the filled
// key means not revoked; neither means Redis lost its data since the last
// refill, and an absent mark proves nothing. The reader then waits, with
// every other call of the process that hit the same case, for the filled key
// to come back (at most RefillWait), then reads the mark again. Meanwhile
// every auth replica checks the filled key every FilledCheckInterval and
// refills at once when it is missing, so the wait is a fraction of a second.
// If no refill comes (the auth service is down as well), the call fails
// (internal error): the service refuses tokens it cannot check rather than
// accept revoked ones.
//
// The wait is for tokens whose auth writes the filled key (their ver claim,
// access.TokenVersionRefills). A token of an auth release from before the
// key has no such claim: its auth never refills, so for it an absent mark
// means not revoked, as the services of that release read it. That keeps a
// service of this release working behind the previous release's auth
// (docs/releases.md); such a token gets the older guarantee (the periodic
// refill) and is gone within the access-token lifetime of that auth's
// upgrade.
//
// What this does not cover: a failover to a replica that lost only the
// last writes (asynchronous replication) keeps the filled key while missing
// the newest marks; the periodic refill repairs those within its interval.
// An eviction policy that may evict keys with a TTL (volatile-*, allkeys-*)
// can drop marks the same way: run Redis with noeviction.

// RevocationsFilledKey is the Redis key a refill writes with the marks of
// every session revoked within the access-token lifetime. It has no TTL.
const RevocationsFilledKey = "paygate:revocations-filled"

// refillGuardKey is watched during a refill: a flush or restart between
// reading Postgres and writing Redis aborts the write, which would otherwise
// mark Redis filled without the revocations made in between.
const refillGuardKey = "paygate:revocations-refill-guard"

// Timing of the recovery after Redis lost the revocations.
const (
	// FilledCheckInterval is how often each auth replica checks that
	// RevocationsFilledKey is there, and refills when it is not.
	FilledCheckInterval = 250 * time.Millisecond
	// RefillWait bounds how long a reader waits for the refill before it
	// refuses the call.
	RefillWait = 3 * time.Second
	// refillPoll is how often a waiting reader looks for the filled key.
	refillPoll = 25 * time.Millisecond
)

// ErrRevocationsLost is IsRevoked's error when Redis lost the revocations
// and no refill put them back within RefillWait.
var ErrRevocationsLost = errors.New("redis lost the session revocations and the auth service did not refill them in time")

// RedisRevocations keeps revoked session ids in Redis, each under
// "paygate:revoked-session:<sid>" until the session's last token expires,
// and refuses to trust an absent mark after Redis lost its data (see
// RevocationsFilledKey). The auth service, which records revocations in
// Postgres too, puts them back with KeepRefilled.
type RedisRevocations struct {
	rdb *redis.Client

	mu      sync.Mutex
	waiting *refillWait // the wait for a refill under way, shared by callers
}

// refillWait is one wait for RevocationsFilledKey: done is closed when it
// ends, err then says how.
type refillWait struct {
	done chan struct{}
	err  error
}

var _ Revocations = (*RedisRevocations)(nil)

// NewRedisRevocations returns revocations stored in rdb.
func NewRedisRevocations(rdb *redis.Client) *RedisRevocations {
	return &RedisRevocations{rdb: rdb}
}

// RevokedSessionKey returns the Redis key that marks sessionID revoked.
func RevokedSessionKey(sessionID string) string {
	return "paygate:revoked-session:" + sessionID
}

// Revoke marks sessionID revoked for ttl, which should be the access token
// lifetime, plus Leeway (a verifier accepts a token up to Leeway after its
// expiry).
func (r *RedisRevocations) Revoke(ctx context.Context, sessionID string, ttl time.Duration) error {
	if err := r.rdb.Set(ctx, RevokedSessionKey(sessionID), "1", ttl+Leeway).Err(); err != nil {
		return fmt.Errorf("revoke session %s: %w", sessionID, err)
	}
	return nil
}

// IsRevoked implements Revocations. While Redis is whole it is one MGET;
// after Redis lost its data it waits for the refill (at most RefillWait),
// and fails with ErrRevocationsLost when none comes — for a token whose
// version promises that its auth refills (access.TokenVersionRefills). A
// token of an older auth, which never writes RevocationsFilledKey, is
// judged as that release's services judged it: no mark, not revoked.
func (r *RedisRevocations) IsRevoked(ctx context.Context, claims *access.Claims) (bool, error) {
	sessionID := claims.SessionID
	key := RevokedSessionKey(sessionID)
	vals, err := r.rdb.MGet(ctx, key, RevocationsFilledKey).Result()
	if err != nil {
		return false, fmt.Errorf("check revocation of session %s: %w", sessionID, err)
	}
	switch {
	case vals[0] != nil:
		return true, nil
	case vals[1] != nil:
		return false, nil
	case claims.Version < access.TokenVersionRefills:
		return false, nil
	}
	if err := r.awaitRefill(ctx); err != nil {
		return false, fmt.Errorf("check revocation of session %s: %w", sessionID, err)
	}
	// The refill wrote every mark with the filled key, atomically.
	n, err := r.rdb.Exists(ctx, key).Result()
	if err != nil {
		return false, fmt.Errorf("check revocation of session %s: %w", sessionID, err)
	}
	return n > 0, nil
}

// awaitRefill waits until RevocationsFilledKey is back, for at most
// RefillWait, or until ctx ends. Concurrent callers share one wait, so that
// a lost Redis does not get one poller per call in flight.
func (r *RedisRevocations) awaitRefill(ctx context.Context) error {
	r.mu.Lock()
	w := r.waiting
	if w == nil {
		w = &refillWait{done: make(chan struct{})}
		r.waiting = w
		go r.watchRefill(w)
	}
	r.mu.Unlock()
	select {
	case <-w.done:
		return w.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watchRefill ends w once RevocationsFilledKey is back, or with
// ErrRevocationsLost after RefillWait.
func (r *RedisRevocations) watchRefill(w *refillWait) {
	w.err = r.waitFilled()
	r.mu.Lock()
	r.waiting = nil
	r.mu.Unlock()
	close(w.done)
}

// waitFilled polls for RevocationsFilledKey for at most RefillWait.
func (r *RedisRevocations) waitFilled() error {
	ctx, cancel := context.WithTimeout(context.Background(), RefillWait)
	defer cancel()
	t := time.NewTicker(refillPoll)
	defer t.Stop()
	for {
		if n, err := r.rdb.Exists(ctx, RevocationsFilledKey).Result(); err == nil && n > 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ErrRevocationsLost
		case <-t.C:
		}
	}
}

// RevokedSession is a session revoked at RevokedAt, as the auth service
// records it.
type RevokedSession struct {
	// ID is the session id (the tokens' sid claim).
	ID string
	// RevokedAt is when the session was revoked.
	RevokedAt time.Time
}

// RevokedSince lists the sessions revoked at or after since.
type RevokedSince func(ctx context.Context, since time.Time) ([]RevokedSession, error)

// Refill marks sessions revoked again, each until accessTTL plus Leeway after
// it was revoked: the last moment a verifier accepts an access token issued
// before the revocation, and writes RevocationsFilledKey with them in one
// transaction. sessions must therefore be every session revoked in the last
// accessTTL plus Leeway (none is a valid answer). Sessions past that moment
// are skipped. It returns how many it marked.
func (r *RedisRevocations) Refill(ctx context.Context, sessions []RevokedSession, accessTTL time.Duration, now time.Time) (int, error) {
	return refill(ctx, r.rdb.TxPipelined, sessions, accessTTL, now)
}

// refill writes the marks and the filled key through pipelined, which runs
// them in one MULTI/EXEC.
func refill(ctx context.Context, pipelined func(context.Context, func(redis.Pipeliner) error) ([]redis.Cmder, error),
	sessions []RevokedSession, accessTTL time.Duration, now time.Time) (int, error) {
	n := 0
	_, err := pipelined(ctx, func(pipe redis.Pipeliner) error {
		for _, s := range sessions {
			left := s.RevokedAt.Add(accessTTL + Leeway).Sub(now)
			if left <= 0 {
				continue
			}
			pipe.Set(ctx, RevokedSessionKey(s.ID), "1", left)
			n++
		}
		pipe.Set(ctx, RevocationsFilledKey, now.UTC().Format(time.RFC3339Nano), 0)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("refill %d revoked sessions: %w", n, err)
	}
	return n, nil
}

// refillFrom reads list's sessions revoked in the last accessTTL plus
// Leeway and refills them, under a watch that aborts the write when Redis
// was flushed or restarted in between (the revocations made meanwhile would
// be neither in the list nor in Redis).
func (r *RedisRevocations) refillFrom(ctx context.Context, list RevokedSince, accessTTL time.Duration) error {
	if err := r.rdb.Set(ctx, refillGuardKey, "1", 0).Err(); err != nil {
		return fmt.Errorf("refill revoked sessions: %w", err)
	}
	err := r.rdb.Watch(ctx, func(tx *redis.Tx) error {
		// A flush between the SET and the WATCH took the guard: the watch
		// would not see it.
		if n, err := tx.Exists(ctx, refillGuardKey).Result(); err != nil {
			return err
		} else if n == 0 {
			return redis.TxFailedErr
		}
		now := time.Now()
		sessions, err := list(ctx, now.Add(-accessTTL-Leeway))
		if err != nil {
			return err
		}
		_, err = refill(ctx, tx.TxPipelined, sessions, accessTTL, now)
		return err
	}, refillGuardKey)
	if errors.Is(err, redis.TxFailedErr) {
		return errors.New("refill revoked sessions: redis lost its data during the refill; trying again")
	}
	return err
}

// KeepRefilled refills the revocations at once, then every interval, and
// within FilledCheckInterval of Redis losing them (RevocationsFilledKey
// gone), until ctx ends, from list's sessions revoked in the last accessTTL
// plus Leeway. Readers wait for that refill instead of trusting a Redis that
// lost its data (see RevocationsFilledKey). The periodic refill also repairs
// a revocation whose Redis write failed. A failed refill is logged and tried
// again at the next check; KeepRefilled returns nil when ctx ends.
func (r *RedisRevocations) KeepRefilled(ctx context.Context, list RevokedSince, accessTTL, interval time.Duration, log *slog.Logger) error {
	full := time.NewTicker(interval)
	defer full.Stop()
	check := time.NewTicker(min(FilledCheckInterval, interval))
	defer check.Stop()
	due := true // a refill at once
	lost := false
	var lastErrLog time.Time
	for {
		if due {
			err := r.refillFrom(ctx, list, accessTTL)
			// A refill failing at every check (Postgres down) logs every
			// 10s, not four times a second.
			if err != nil && ctx.Err() == nil && time.Since(lastErrLog) >= 10*time.Second {
				log.ErrorContext(ctx, "refill revoked sessions in redis", "err", err)
				lastErrLog = time.Now()
			}
			due = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-full.C:
			due = true
		case <-check.C:
			n, err := r.rdb.Exists(ctx, RevocationsFilledKey).Result()
			if err != nil {
				continue // Redis is down: the readers fail, nothing to refill yet
			}
			if n == 0 && !lost {
				log.WarnContext(ctx, "redis lost the session revocations; refilling them now")
			}
			lost = n == 0
			due = due || lost
		}
	}
}
