package authz_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/internal/authz"
)

// testRedis returns a client of the test Redis and a function that makes
// session ids of this test's own (its keys are the only ones it deletes:
// the Redis is shared, so no test flushes it).
func testRedis(t *testing.T) (*redis.Client, func() string) {
	t.Helper()
	opts, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	var keys []string
	t.Cleanup(func() {
		if len(keys) > 0 {
			rdb.Del(context.Background(), keys...)
		}
		_ = rdb.Close()
	})
	return rdb, func() string {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		sid := "test-refill-" + hex.EncodeToString(b)
		keys = append(keys, authz.RevokedSessionKey(sid))
		return sid
	}
}

// A Redis that lost its revocations gets back those whose tokens can still
// be valid, each until its last token expires.
func TestRedisRevocationsRefill(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	rdb, newSID := testRedis(t)
	rev := authz.NewRedisRevocations(rdb)
	now := time.Now()
	const accessTTL = 5 * time.Minute
	recent := authz.RevokedSession{ID: newSID(), RevokedAt: now.Add(-time.Minute)}
	old := authz.RevokedSession{ID: newSID(), RevokedAt: now.Add(-accessTTL - authz.Leeway - time.Second)}
	for _, s := range []authz.RevokedSession{recent, old} {
		if err := rev.Revoke(ctx, s.ID, accessTTL); err != nil {
			t.Fatal(err)
		}
	}
	// Redis loses them (this test's keys only).
	if err := rdb.Del(ctx, authz.RevokedSessionKey(recent.ID), authz.RevokedSessionKey(old.ID)).Err(); err != nil {
		t.Fatal(err)
	}
	if revoked, err := rev.IsRevoked(ctx, recent.ID); err != nil || revoked {
		t.Fatalf("IsRevoked after the flush = %v, %v", revoked, err)
	}

	n, err := rev.Refill(ctx, []authz.RevokedSession{recent, old}, accessTTL, now)
	if err != nil || n != 1 {
		t.Fatalf("Refill = %d, %v; want 1 (the old one is past its tokens)", n, err)
	}
	if revoked, err := rev.IsRevoked(ctx, recent.ID); err != nil || !revoked {
		t.Errorf("IsRevoked(recent) after Refill = %v, %v", revoked, err)
	}
	if revoked, err := rev.IsRevoked(ctx, old.ID); err != nil || revoked {
		t.Errorf("IsRevoked(old) after Refill = %v, %v", revoked, err)
	}
	ttl, err := rdb.TTL(ctx, authz.RevokedSessionKey(recent.ID)).Result()
	if want := accessTTL + authz.Leeway - time.Minute; err != nil || ttl > want || ttl < want-5*time.Second {
		t.Errorf("TTL = %v, %v; want about %v", ttl, err, want)
	}
	if n, err := rev.Refill(ctx, nil, accessTTL, now); err != nil || n != 0 {
		t.Errorf("Refill of nothing = %d, %v", n, err)
	}
}

// KeepRefilled puts back a lost revocation within its interval, survives a
// failing source, and returns when its context ends.
func TestRedisRevocationsKeepRefilled(t *testing.T) {
	t.Parallel()
	rdb, newSID := testRedis(t)
	rev := authz.NewRedisRevocations(rdb)
	sid := newSID()
	revokedAt := time.Now()
	fail := make(chan bool, 1)
	fail <- true // the first call fails: the loop goes on
	var since time.Time
	sinceSet := make(chan struct{})
	list := func(ctx context.Context, s time.Time) ([]authz.RevokedSession, error) {
		select {
		case <-fail:
			return nil, errors.New("database down")
		default:
		}
		select {
		case <-sinceSet:
		default:
			since = s
			close(sinceSet)
		}
		return []authz.RevokedSession{{ID: sid, RevokedAt: revokedAt}}, nil
	}
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() {
		done <- rev.KeepRefilled(ctx, list, time.Minute, 20*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	waitRevoked := func(what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			revoked, err := rev.IsRevoked(ctx, sid)
			if err != nil {
				t.Fatal(err)
			}
			if revoked {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: session not revoked again within 5s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitRevoked("first refill")
	<-sinceSet
	if d := time.Since(since); d < time.Minute+authz.Leeway || d > time.Minute+authz.Leeway+5*time.Second {
		t.Errorf("asked for sessions revoked in the last %v, want the access TTL plus the leeway", d)
	}
	if err := rdb.Del(ctx, authz.RevokedSessionKey(sid)).Err(); err != nil {
		t.Fatal(err)
	}
	waitRevoked("after a flush")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("KeepRefilled = %v, want nil", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("KeepRefilled still running 3s after its context ended")
	}
}
