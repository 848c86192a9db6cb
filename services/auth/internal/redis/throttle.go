// Package redis keeps the auth service's sign-in throttle in Redis.
package redis

import (
	"context"
	"fmt"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/auth/internal/identity"
)

// Throttle implements identity.Throttle with one counter per key that
// expires when its window ends. Counters are shared by every replica.
type Throttle struct {
	rdb    *goredis.Client
	prefix string
}

var _ identity.Throttle = (*Throttle)(nil)

// NewThrottle returns a Throttle whose keys start with prefix.
func NewThrottle(rdb *goredis.Client, prefix string) *Throttle {
	return &Throttle{rdb: rdb, prefix: prefix}
}

// failScript counts a failure and starts the window on the first one, in one
// round trip and atomically, so a crash between INCR and EXPIRE cannot leave
// a counter that never expires.
var failScript = goredis.NewScript(`
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n`)

// Blocked implements identity.Throttle.
func (t *Throttle) Blocked(ctx context.Context, key string, limit int) (time.Duration, error) {
	k := t.prefix + key
	pipe := t.rdb.Pipeline()
	get := pipe.Get(ctx, k)
	ttl := pipe.PTTL(ctx, k)
	if _, err := pipe.Exec(ctx); err != nil && err != goredis.Nil {
		return 0, fmt.Errorf("read throttle %s: %w", key, err)
	}
	n, err := get.Int()
	if err == goredis.Nil {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read throttle %s: %w", key, err)
	}
	if n < limit {
		return 0, nil
	}
	wait := ttl.Val()
	if wait <= 0 {
		wait = time.Second
	}
	return wait, nil
}

// Fail implements identity.Throttle.
func (t *Throttle) Fail(ctx context.Context, key string, window time.Duration) error {
	if err := failScript.Run(ctx, t.rdb, []string{t.prefix + key}, window.Milliseconds()).Err(); err != nil {
		return fmt.Errorf("count failure %s: %w", key, err)
	}
	return nil
}

// Reset implements identity.Throttle.
func (t *Throttle) Reset(ctx context.Context, key string) error {
	if err := t.rdb.Del(ctx, t.prefix+key).Err(); err != nil {
		return fmt.Errorf("reset throttle %s: %w", key, err)
	}
	return nil
}

// failDistinctScript adds a member to a failure set and starts the window on
// the set's first member, atomically.
var failDistinctScript = goredis.NewScript(`
redis.call('SADD', KEYS[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return 1`)

// FailDistinct implements identity.Throttle.
func (t *Throttle) FailDistinct(ctx context.Context, key, member string, window time.Duration) error {
	if err := failDistinctScript.Run(ctx, t.rdb, []string{t.prefix + key}, window.Milliseconds(), member).Err(); err != nil {
		return fmt.Errorf("count failure %s: %w", key, err)
	}
	return nil
}

// BlockedDistinct implements identity.Throttle.
func (t *Throttle) BlockedDistinct(ctx context.Context, key string, limit int) (time.Duration, error) {
	k := t.prefix + key
	pipe := t.rdb.Pipeline()
	card := pipe.SCard(ctx, k)
	ttl := pipe.PTTL(ctx, k)
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("read throttle %s: %w", key, err)
	}
	if card.Val() < int64(limit) {
		return 0, nil
	}
	wait := ttl.Val()
	if wait <= 0 {
		wait = time.Second
	}
	return wait, nil
}
