package authz

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

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
// before the revocation. Sessions past that moment are skipped. It returns
// how many it marked.
func (r *RedisRevocations) Refill(ctx context.Context, sessions []RevokedSession, accessTTL time.Duration, now time.Time) (int, error) {
	pipe := r.rdb.Pipeline()
	n := 0
	for _, s := range sessions {
		left := s.RevokedAt.Add(accessTTL + Leeway).Sub(now)
		if left <= 0 {
			continue
		}
		pipe.Set(ctx, RevokedSessionKey(s.ID), "1", left)
		n++
	}
	if n == 0 {
		return 0, nil
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("refill %d revoked sessions: %w", n, err)
	}
	return n, nil
}

// KeepRefilled refills the revocations at once and then every interval until
// ctx ends, from list's sessions revoked in the last accessTTL plus Leeway,
// so that a Redis that lost its data (a restart without persistence, a
// flush, a failover) refuses every revoked session's tokens again within
// interval. It also repairs a revocation whose Redis write failed. A failed
// refill is logged and tried again at the next tick; KeepRefilled returns nil
// when ctx ends.
func (r *RedisRevocations) KeepRefilled(ctx context.Context, list RevokedSince, accessTTL, interval time.Duration, log *slog.Logger) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		now := time.Now()
		sessions, err := list(ctx, now.Add(-accessTTL-Leeway))
		if err == nil {
			_, err = r.Refill(ctx, sessions, accessTTL, now)
		}
		if err != nil && ctx.Err() == nil {
			log.ErrorContext(ctx, "refill revoked sessions in redis", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
